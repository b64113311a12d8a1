import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The anomaly kinds of issue 12 (migration 0027), each on hand-built events with hand-computed evidence.
@Suite struct AnomalyKindsTests {
    private func findings(
        _ scenario: ReportScenario, _ from: Int, _ to: Int, kind: AnomalyKind
    ) throws -> [AnomalyFinding] {
        try AnomaliesReport.run(
            session: scenario.session, scope: scenario.scope(from, to), asOf: scenario.time(30, "00:00")
        ).findings.filter { $0.kind == kind }
    }

    @Test("An in-app message shown twice in a session, or twice on a day without session, is repeated_impressions")
    func repeatedImpressionsPerSessionAndUserDay() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let message = { (user: String, day: Int, session: String?, id: String) in
            event(.impression, .inAppMessage, at: scenario.time(day, "01:00"), user: user, session: session, message: id)
        }
        try scenario.write([
            // u1 sees m1 twice in session s1: 2 ≥ 2 × 1, repeated.
            message("u1", 10, "s1", "m1"), message("u1", 10, "s1", "m1"),
            // u2 sees it once.
            message("u2", 10, "s2", "m1"),
            // u3 logs no session and sees m2 twice on day 10: a repeated user-day.
            message("u3", 10, nil, "m2"), message("u3", 10, nil, "m2"),
            // u4 logs no session and sees it once on day 10 and once on day 11: two user-days, neither repeated.
            message("u4", 10, nil, "m2"), message("u4", 11, nil, "m2"),
            // A content card seen twice in a session is within its 3× rule.
            event(.impression, at: scenario.time(10, "01:00"), user: "u5", session: "s5", message: "k1"),
            event(.impression, at: scenario.time(10, "01:01"), user: "u5", session: "s5", message: "k1"),
        ])
        let found = try findings(scenario, 10, 11, kind: .repeatedImpressions)
        #expect(found.map(\.channel) == ["in_app_message"])
        let finding = try #require(found.first)
        // Units: u1/s1 (2), u2/s2 (1), u3/day 10 (2), u4/day 10 (1), u4/day 11 (1); u1 and u3 repeat.
        #expect(finding.evidence["sessions"] == 5)
        #expect(finding.evidence["repeated_sessions"] == 2)
        #expect(finding.evidence["user_days_without_session"] == 3)
        #expect(finding.evidence["users"] == 4)
        #expect(finding.evidence["affected_users"] == 2)
        #expect(finding.evidence["share"] == 0.5)
        #expect(finding.evidence["impressions"] == 7)
        #expect(finding.evidence["allowed_impressions"] == 5)
        #expect(finding.evidence["max_in_a_session"] == 2)
        // Half the users affected is well over 1 %.
        #expect(finding.severity == .warning)
    }

    @Test("A campaign shown to 200 users with no control exposure and no split is an info control_impressions_missing")
    func controlArmAbsent() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c3", CampaignSettingsUpdate(expectedSplit: .set(try ExpectedSplit(parsing: "v1=1"))))
        var events: [Event] = []
        for index in 0..<250 {
            // c1: 200 users; c2: 199 users, too few to tell; c3: 250 users but a split without control.
            if index < 200 {
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: "u\(index)", campaign: "c1"))
            }
            if index < 199 {
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: "u\(index)", campaign: "c2"))
            }
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "u\(index)", campaign: "c3"))
        }
        try scenario.write(events)
        let found = try findings(scenario, 10, 10, kind: .controlImpressionsMissing)
        #expect(found.map(\.campaignID) == ["c1"])
        let finding = try #require(found.first)
        #expect(finding.severity == .info)
        #expect((finding.channel, finding.platform) == ("content_card", nil))
        #expect(finding.evidence["variant_impression_users"] == 200)
        #expect(finding.evidence["control_impression_users"] == 0)
        #expect(finding.likelyCause.contains("isControl"))
    }

    @Test("1000 push sends on a platform without an open are push_opens_missing; one open or 999 sends are not")
    func pushOpensMissing() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        for index in 0..<1000 {
            let user = "u\(index)"
            events.append(event(.send, .push, at: scenario.time(10, "01:00"), user: user, campaign: "p1", variant: nil,
                                platform: .android))
            events.append(event(.send, .push, at: scenario.time(10, "01:00"), user: user, campaign: "p1", variant: nil,
                                platform: .ios))
            if index < 999 {
                events.append(event(.send, .push, at: scenario.time(10, "01:00"), user: user, campaign: "p2",
                                    variant: nil, platform: .android))
            }
        }
        events.append(event(.click, .push, at: scenario.time(10, "02:00"), user: "u7", campaign: "p1", variant: nil,
                            platform: .ios))
        try scenario.write(events)
        let found = try findings(scenario, 10, 10, kind: .pushOpensMissing)
        #expect(found.map { "\($0.campaignID ?? "-")/\($0.platform ?? "-")" } == ["p1/android"])
        let finding = try #require(found.first)
        #expect(finding.severity == .critical)
        #expect(finding.channel == "push")
        #expect(finding.evidence["sends"] == 1000)
        #expect(finding.evidence["opens"] == 0)
    }

    @Test("A platform whose daily events fall to zero while another goes on is logging_stopped; a campaign's end is not")
    func loggingStopped() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        for day in 3...12 {
            for index in 0..<30 {
                let user = "u\(index)"
                // c1: iOS logs 30 a day up to day 9 and then nothing; Android goes on through day 12.
                if day <= 9 {
                    events.append(event(.impression, at: scenario.time(day, "01:00"), user: user, campaign: "c1"))
                }
                events.append(event(.impression, at: scenario.time(day, "01:00"), user: user, campaign: "c1",
                                    platform: .android))
                // c2 ends on day 9 on both platforms: the campaign's end, not a logging problem.
                if day <= 9 {
                    events.append(event(.impression, at: scenario.time(day, "01:00"), user: user, campaign: "c2"))
                    events.append(event(.impression, at: scenario.time(day, "01:00"), user: user, campaign: "c2",
                                        platform: .android))
                }
            }
        }
        try scenario.write(events)
        let found = try findings(scenario, 10, 12, kind: .loggingStopped)
        #expect(found.map { "\($0.campaignID ?? "-")/\($0.platform ?? "-")" } == ["c1/ios"])
        let finding = try #require(found.first)
        #expect(finding.severity == .warning)
        #expect(finding.channel == "content_card")
        let day10 = scenario.day(10).description.replacingOccurrences(of: "-", with: "")
        #expect(finding.evidence["first_day"] == Double(day10))
        #expect(finding.evidence["events"] == 0)
        // Days 3 to 9 logged 30 each; days 11 (mean 180/7 = 25.7) and 12 (150/7 = 21.4) fell too.
        #expect(finding.evidence["trailing_daily_events"] == 30)
        #expect(finding.evidence["days"] == 3)
    }
}

extension AnomalyKindsTests {
    @Test("A user dismissing the same card twice is repeated_dismissals; two cards once each are not")
    func repeatedDismissals() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let dismissal = { (user: String, day: Int, card: String?) in
            event(.dismissal, at: scenario.time(day, "01:00"), user: user, message: card)
        }
        try scenario.write([
            // u1 dismisses card k1 on day 10 and again on day 11: repeated, across days.
            dismissal("u1", 10, "k1"), dismissal("u1", 11, "k1"),
            // u2 dismisses k1 three times on day 10: repeated.
            dismissal("u2", 10, "k1"), dismissal("u2", 10, "k1"), dismissal("u2", 10, "k1"),
            // u3 dismisses two different cards once each; u4 dismisses without a card id, twice.
            dismissal("u3", 10, "k1"), dismissal("u3", 10, "k2"),
            dismissal("u4", 10, nil), dismissal("u4", 10, nil),
        ])
        // The state folded for some events and pending for others must agree: fold half-way.
        _ = try ReportStateStore(connection: scenario.connection).fold()
        try scenario.write([dismissal("u5", 11, "k3")])
        let found = try findings(scenario, 10, 11, kind: .repeatedDismissals)
        let finding = try #require(found.first)
        #expect(found.count == 1)
        // Users with a card id: u1, u2, u3, u5; u1 and u2 repeated one card each.
        #expect(finding.evidence["users"] == 4)
        #expect(finding.evidence["affected_users"] == 2)
        #expect(finding.evidence["share"] == 0.5)
        #expect(finding.evidence["repeated_cards"] == 2)
        #expect(finding.evidence["dismissals"] == 8)
        #expect(finding.evidence["max_per_card"] == 3)
        #expect(finding.severity == .warning)
        // Only day 11 in the range: u1 dismissed k1 once there, u5 once; nothing repeats.
        #expect(try findings(scenario, 11, 11, kind: .repeatedDismissals) == [])
    }

    @Test("Every kind of 0027 gives the same rows from the report state as from the raw events")
    func stateAgreesWithReference() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        for index in 0..<1000 {
            events.append(event(.send, .push, at: scenario.time(10, "01:00"), user: "u\(index % 40)", campaign: "p1",
                                variant: nil, platform: .android))
        }
        for index in 0..<200 {
            events.append(event(.impression, .inAppMessage, at: scenario.time(10, "01:00"), user: "u\(index)",
                                session: index < 10 ? "s" : nil, message: "m1"))
            events.append(event(.dismissal, at: scenario.time(10, "02:00"), user: "u\(index % 7)", message: "k1"))
        }
        // u150 has no session and sees m1 twice on day 10.
        events.append(event(.impression, .inAppMessage, at: scenario.time(10, "03:00"), user: "u150", message: "m1"))
        try scenario.write(Array(events.prefix(700)))
        _ = try ReportStateStore(connection: scenario.connection).fold()
        try scenario.write(Array(events.dropFirst(700)))
        let rows = { (function: String) in
            try scenario.connection.query(
                "select kind || ' ' || severity || ' ' || evidence::text from cardinal.\(function)('shop', $1, $2) order by 1",
                [scenario.day(10), scenario.day(10)]
            ).map { try $0.decode(String.self, at: 0) }
        }
        let reference = try rows("anomalies_reference")
        #expect(try rows("anomalies") == reference)
        #expect(Set(reference.map { String($0.split(separator: " ")[0]) })
                .isSuperset(of: ["push_opens_missing", "repeated_dismissals", "repeated_impressions",
                                 "control_impressions_missing"]))
    }
}

extension AnomalyKindsTests {
    @Test("A session split between folded and pending events, two variants and two days is judged as one session")
    func repeatedImpressionsOfASplitSession() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // No SDK version: the finding groups have a NULL column, which pending rows must still match.
        let message = { (user: String, time: Date, session: String, id: String, variant: String, platform: Platform) in
            event(.impression, .inAppMessage, at: time, user: user, variant: variant, session: session, message: id,
                  platform: platform, sdk: nil)
        }
        // Tokyo report days: 14:30 UTC of day 10 is 23:30 of report day 10, 15:30 UTC is 00:30 of day 11.
        try scenario.write([
            // u1 sees m1 in session s1 late on day 10 under v1 (folded below) ...
            message("u1", scenario.time(10, "14:30"), "s1", "m1", "v1", .ios),
            // ... u2 sees m1 and m2 once each in s2: 2 impressions of 2 messages, within 2 × 2.
            message("u2", scenario.time(10, "10:00"), "s2", "m1", "v1", .ios),
            message("u2", scenario.time(10, "10:01"), "s2", "m2", "v1", .ios),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        try scenario.write([
            // ... and m1 again in s1 after midnight under v2, pending: s1 has 2 impressions of 1 message, 2 ≥ 2 × 1.
            message("u1", scenario.time(10, "15:30"), "s1", "m1", "v2", .ios),
            // u3 sees m3 twice in s3 on Android, a finding group that only pending events have.
            message("u3", scenario.time(11, "01:00"), "s3", "m3", "v1", .android),
            message("u3", scenario.time(11, "01:01"), "s3", "m3", "v1", .android),
        ])
        try scenario.beforeAndAfterFold { folded throws in
            let found = try findings(scenario, 10, 11, kind: .repeatedImpressions)
            #expect(found.count == 2, "folded: \(folded)")
            #expect(Set(found.compactMap(\.platform)) == ["android", "ios"])
            let android = try #require(found.first { $0.platform == "android" })
            // u3/s3: 2 impressions, 1 allowed, repeated.
            #expect(android.sdkVersion == nil)
            #expect(android.evidence["sessions"] == 1)
            #expect(android.evidence["repeated_sessions"] == 1)
            #expect(android.evidence["users"] == 1)
            #expect(android.evidence["impressions"] == 2)
            #expect(android.evidence["allowed_impressions"] == 1)
            let ios = try #require(found.first { $0.platform == "ios" })
            // u1/s1 (2 impressions, 1 allowed, repeated) and u2/s2 (2 impressions, 2 allowed): 2 sessions, 1
            // repeated, 2 users of whom 1 affected, 4 impressions, 3 allowed, at most 2 in a session.
            #expect(ios.evidence["sessions"] == 2, "folded: \(folded)")
            #expect(ios.evidence["repeated_sessions"] == 1)
            #expect(ios.evidence["user_days_without_session"] == 0)
            #expect(ios.evidence["users"] == 2)
            #expect(ios.evidence["affected_users"] == 1)
            #expect(ios.evidence["impressions"] == 4)
            #expect(ios.evidence["allowed_impressions"] == 3)
            #expect(ios.evidence["max_in_a_session"] == 2)
        }
    }
}

extension AnomalyKindsTests {
    @Test("A campaign without control counts each variant user once, whether folded, pending or both, per channel")
    func controlArmAbsentOverFoldedAndPendingUsers() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let impression = { (user: Int, day: Int, campaign: String, channel: Channel) in
            event(.impression, channel, at: scenario.time(day, "01:00"), user: "u\(user)", campaign: campaign)
        }
        // c1 (content cards only) and c2 (content cards, and one in-app message) get the same users: 150 who
        // see them on day 10 and 10 who saw them on day 5 only, all folded ...
        var folded: [Event] = []
        for campaign in ["c1", "c2"] {
            folded += (0..<150).map { impression($0, 10, campaign, .contentCard) }
            folded += (150..<160).map { impression($0, 5, campaign, .contentCard) }
        }
        try scenario.write(folded)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        // ... then, pending: 30 of the first see them again on day 10 (counted once), the 10 see them on day 10
        // (folded, but not in the range) and 40 new users: 150 + 10 + 40 = 200 users in the range.
        var pending: [Event] = []
        for campaign in ["c1", "c2"] {
            pending += (120..<150).map { impression($0, 10, campaign, .contentCard) }
            pending += (150..<200).map { impression($0, 10, campaign, .contentCard) }
        }
        pending.append(impression(7, 10, "c2", .inAppMessage))
        try scenario.write(pending)
        let found = try findings(scenario, 10, 10, kind: .controlImpressionsMissing)
        // c2's in-app message user is one user of that channel, too few for a finding of its own.
        #expect(found.map { [$0.campaignID, $0.channel] } == [["c1", "content_card"], ["c2", "content_card"]])
        #expect(found.map { $0.evidence["variant_impression_users"] } == [200, 200])
        // The same after everything is folded.
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try findings(scenario, 10, 10, kind: .controlImpressionsMissing).map { $0.evidence["variant_impression_users"] }
                == [200, 200])
        // Days 5 to 10 hold the same 200 users; day 5 alone the 10.
        #expect(try findings(scenario, 5, 10, kind: .controlImpressionsMissing).map { $0.evidence["variant_impression_users"] }
                == [200, 200])
        #expect(try findings(scenario, 5, 5, kind: .controlImpressionsMissing) == [])
    }
}
