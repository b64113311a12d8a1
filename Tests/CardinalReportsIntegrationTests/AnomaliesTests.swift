import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import PostgresClient
import Testing

@Suite struct AnomaliesTests {
    private func findings(_ scenario: ReportScenario, _ from: Int, _ to: Int) throws -> [AnomalyFinding] {
        try AnomaliesReport.run(
            session: scenario.session, scope: scenario.scope(from, to), asOf: scenario.time(30, "00:00")
        ).findings
    }

    @Test("More users dismissing than seeing a campaign's cards is dismissals_exceed_impressions")
    func dismissalsExceedImpressions() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.dismissal, at: scenario.time(10, "01:05"), user: "u1"),
            event(.dismissal, at: scenario.time(10, "02:00"), user: "u2"),
            event(.dismissal, at: scenario.time(10, "03:00"), user: "u3"),
        ])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .dismissalsExceedImpressions }
        #expect(found.count == 1)
        let finding = try #require(found.first)
        #expect(finding.severity == .critical)
        #expect((finding.campaignID, finding.channel, finding.platform, finding.sdkVersion, finding.appVersion)
                == ("c1", "content_card", "ios", "5.0", "1.0"))
        // 1 user saw, 3 users dismissed.
        #expect(finding.evidence["unique_impressions"] == 1)
        #expect(finding.evidence["unique_dismissals"] == 3)
        #expect(!finding.likelyCause.isEmpty)
    }

    @Test("A dismissal before any impression by the same user is found in the SDK build that logged it")
    func dismissalWithoutImpression() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            // u1 on Android SDK 4.2 dismisses at 01:00 and logs the impression only at 02:00: no impression at or
            // before the dismissal.
            event(.dismissal, at: scenario.time(10, "01:00"), user: "u1", platform: .android, sdk: "4.2"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u1", platform: .android, sdk: "4.2"),
            // u4 on the same build dismisses without any impression at all.
            event(.dismissal, at: scenario.time(10, "02:00"), user: "u4", platform: .android, sdk: "4.2"),
            // u5 on the same build saw the card 35 days before dismissing it: an impression is an impression
            // however old (the look-back covers the whole history since 0017), so u5 is fine.
            event(.impression, at: scenario.time(-25, "02:00"), user: "u5", platform: .android, sdk: "4.2"),
            event(.dismissal, at: scenario.time(10, "02:30"), user: "u5", platform: .android, sdk: "4.2"),
            // u2 saw the card on day 3, before the range, and dismisses on day 10: fine.
            event(.impression, at: scenario.time(3, "02:00"), user: "u2"),
            event(.dismissal, at: scenario.time(10, "02:00"), user: "u2"),
            // u3 sees, then dismisses: fine.
            event(.impression, at: scenario.time(10, "03:00"), user: "u3"),
            event(.dismissal, at: scenario.time(10, "03:05"), user: "u3"),
        ])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .dismissalWithoutImpression }
        // Only the android/4.2 group: two of its three dismissing users, u1 and u4, not u5.
        #expect(found.map(\.platform) == ["android"])
        let finding = try #require(found.first)
        #expect(finding.sdkVersion == "4.2")
        #expect(finding.evidence["users_without_impression"] == 2)
        #expect(finding.evidence["users"] == 3)
        #expect(finding.evidence["share"] == 2.0 / 3.0)
        #expect(finding.evidence["events_without_impression"] == 2)
        #expect(finding.severity == .critical)
    }

    @Test("A click with no impression is click_without_impression, except for push, which has no impressions")
    func clickWithoutImpression() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.click, .inAppMessage, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, .inAppMessage, at: scenario.time(10, "01:00"), user: "u2"),
            event(.click, .inAppMessage, at: scenario.time(10, "01:01"), user: "u2"),
            event(.click, .push, at: scenario.time(10, "01:00"), user: "u3", campaign: "p1"),
        ])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .clickWithoutImpression }
        #expect(found.map(\.channel) == ["in_app_message"])
        let finding = try #require(found.first)
        // u1 of the 2 clicking users: half, critical.
        #expect(finding.evidence["users_without_impression"] == 1)
        #expect(finding.evidence["users"] == 2)
        #expect(finding.evidence["share"] == 0.5)
        #expect(finding.severity == .critical)
    }

    @Test("A click is judged by the user's impression or control exposure in another build or a test event")
    func clickJudgedByTheUsersOtherRows() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            // u1 saw the card on Android 4.2 and clicked it on iOS 5.0: the impression counts across builds.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", platform: .android, sdk: "4.2"),
            event(.click, at: scenario.time(10, "02:00"), user: "u1"),
            // u2 clicked with no impression anywhere.
            event(.click, at: scenario.time(10, "02:00"), user: "u2"),
            // u3's control impression on Android makes the iOS click a control user's: control_interaction.
            event(.impression, at: scenario.time(10, "01:00"), user: "u3", variant: nil, control: true,
                  platform: .android, sdk: "4.2"),
            event(.click, at: scenario.time(10, "02:00"), user: "u3", variant: nil),
            // u4's impression was a test event: the look-up takes test events too, so u4 is fine.
            event(.impression, at: scenario.time(10, "01:00"), user: "u4", test: true),
            event(.click, at: scenario.time(10, "02:00"), user: "u4"),
        ])
        let found = try findings(scenario, 10, 10)
        let withoutImpression = found.filter { $0.kind == .clickWithoutImpression }
        #expect(withoutImpression.map(\.platform) == ["ios"])
        let finding = try #require(withoutImpression.first)
        // The iOS group's clicking users but the control user u3: u1, u2, u4; only u2 without an impression.
        #expect(finding.evidence["users_without_impression"] == 1)
        #expect(finding.evidence["users"] == 3)
        #expect(finding.evidence["events_without_impression"] == 1)
        #expect(finding.evidence["events"] == 3)
        let control = found.filter { $0.kind == .controlInteraction }
        #expect(control.map(\.platform) == ["ios"])
        #expect(control.first?.evidence["stored_events"] == 1)
        #expect(control.first?.evidence["stored_users"] == 1)
    }

    @Test("A control arm without control impressions is critical campaign-wide and a warning for one group")
    func controlImpressionsMissing() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let evenSplit = CampaignSettingsUpdate(expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1")))
        try scenario.settings("c1", evenSplit)
        try scenario.settings("c3", evenSplit)
        var events: [Event] = []
        for index in 0..<10 {
            // c1: 10 users see v1, nobody logs a control impression: 10 expected at 1:1.
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "a\(index)"))
            // c3: on Android 10 users see v1 and no control impression is logged there (10 expected) …
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "b\(index)", campaign: "c3",
                                platform: .android))
        }
        for index in 0..<5 {
            // … while iOS logs both arms.
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", campaign: "c3"))
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "d\(index)", campaign: "c3",
                                variant: nil, control: true))
        }
        try scenario.write(events)
        let found = try findings(scenario, 10, 10).filter { $0.kind == .controlImpressionsMissing }
        #expect(found.map(\.campaignID) == ["c1", "c3"])
        #expect(found.map(\.severity) == [.critical, .warning])
        #expect(found.map(\.platform) == ["ios", "android"])
        #expect(found.map { $0.evidence["variant_impression_users"] } == [10, 10])
        #expect(found.map { $0.evidence["expected_control_impression_users"] } == [10, 10])
        #expect(found.map { $0.evidence["campaign_control_impression_users"] } == [0, 5])
    }

    @Test("Clicks of control users are control_interaction, stored or rejected, and a malformed raw does no harm")
    func controlInteraction() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            // u1 was enrolled in control and yet clicked the card.
            event(.send, at: scenario.time(10, "01:00"), user: "u1", variant: nil, control: true),
            event(.click, at: scenario.time(10, "02:00"), user: "u1", variant: nil),
        ])
        // Rejected by ingest today (the received time, day 60 or 61 in Tokyo).
        try scenario.reject(code: "control_interaction", raw: """
            {"id":"7c0f1a52-3c2e-4d8e-9a53-2f1d0f6a9b10","type":"click","channel":"content_card","control":true,\
            "campaign_id":"c2","user_id":"u9","platform":"android","sdk_version":"4.2","app_version":"1.0",\
            "time":"2026-01-01T00:00:00Z"}
            """)
        try scenario.reject(code: "control_interaction", raw: "{not json")
        try scenario.reject(code: "invalid_uuid", raw: #"{"campaign_id":"c2"}"#)
        let found = try findings(scenario, 10, 62).filter { $0.kind == .controlInteraction }
        #expect(found.count == 3)
        let stored = try #require(found.first { $0.campaignID == "c1" })
        #expect(stored.severity == .critical)
        #expect(stored.evidence["stored_events"] == 1)
        #expect(stored.evidence["stored_users"] == 1)
        #expect(stored.evidence["rejected_events"] == 0)
        let rejected = try #require(found.first { $0.campaignID == "c2" })
        #expect(rejected.severity == .warning)
        #expect((rejected.platform, rejected.sdkVersion) == ("android", "4.2"))
        #expect(rejected.evidence["rejected_events"] == 1)
        // The malformed one is still counted, with an unknown group.
        let malformed = try #require(found.first { $0.campaignID == nil })
        #expect(malformed.evidence["rejected_events"] == 1)
        // The stored click is not also reported as a click without impression.
        #expect(try findings(scenario, 10, 62).allSatisfy { $0.kind != .clickWithoutImpression })
    }

    @Test("A banner logged three times in a session is repeated_impressions; two card views are within the rule")
    func repeatedImpressions() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            // Banner b1: u1 logs 3 impressions in session s1, u2 one in s2: 4 impressions where 2 are allowed.
            event(.impression, .banner, at: scenario.time(10, "01:00"), user: "u1", campaign: "b1", session: "s1"),
            event(.impression, .banner, at: scenario.time(10, "01:01"), user: "u1", campaign: "b1", session: "s1"),
            event(.impression, .banner, at: scenario.time(10, "01:02"), user: "u1", campaign: "b1", session: "s1"),
            event(.impression, .banner, at: scenario.time(10, "01:00"), user: "u2", campaign: "b1", session: "s2"),
            // Card m1 of c1 seen twice in one session: 2 per allowed view, below the cards' 3.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", session: "s1", message: "m1"),
            event(.impression, at: scenario.time(10, "01:05"), user: "u1", session: "s1", message: "m1"),
        ])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .repeatedImpressions }
        #expect(found.map(\.campaignID) == ["b1"])
        let finding = try #require(found.first)
        #expect(finding.severity == .warning)
        #expect(finding.evidence["sessions"] == 2)
        #expect(finding.evidence["repeated_sessions"] == 1)
        #expect(finding.evidence["impressions"] == 4)
        #expect(finding.evidence["allowed_impressions"] == 2)
        #expect(finding.evidence["impressions_per_allowed"] == 2)
        #expect(finding.evidence["max_in_a_session"] == 3)
    }

    @Test("A user who saw two variants of a campaign is users_in_several_arms")
    func usersInSeveralArms() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", variant: "v1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u1", variant: "v2"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2", variant: "v1"),
        ])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .usersInSeveralArms }
        #expect(found.count == 1)
        let finding = try #require(found.first)
        // u1 of the 2 exposed users.
        #expect(finding.evidence["users"] == 1)
        #expect(finding.evidence["exposed_users"] == 2)
        #expect(finding.evidence["share"] == 0.5)
        #expect(finding.severity == .critical)
    }

    @Test("A user who saw two variants in two builds is in several arms in each build's users_in_several_arms")
    func usersInSeveralArmsAcrossBuilds() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            // u1 saw v1 on Android 4.2 and v2 on iOS: rows in two finding groups, several arms campaign-wide.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", variant: "v1", platform: .android,
                  sdk: "4.2"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u1", variant: "v2"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2", variant: "v1"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u3", variant: "v2", platform: .android,
                  sdk: "4.2"),
            event(.impression, at: scenario.time(10, "03:00"), user: "u3", variant: "v2", platform: .android,
                  sdk: "4.2"),
        ])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .usersInSeveralArms }
        #expect(Set(found.compactMap(\.platform)) == ["android", "ios"])
        // Each build's exposed users: Android u1 and u3, iOS u1 and u2; u1 of the 2 in each.
        for finding in found {
            #expect(finding.evidence["users"] == 1)
            #expect(finding.evidence["exposed_users"] == 2)
            #expect(finding.evidence["share"] == 0.5)
        }
    }

    @Test("10 control users against 40 in v1 on a 1:1 split is a sample_ratio_mismatch")
    func sampleRatioMismatch() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1"))
        ))
        var events: [Event] = []
        for index in 0..<40 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
        }
        for index in 0..<10 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                control: true))
        }
        try scenario.write(events)
        let found = try findings(scenario, 10, 10).filter { $0.kind == .sampleRatioMismatch }
        #expect(found.count == 1)
        let finding = try #require(found.first)
        #expect(finding.severity == .critical)
        #expect(finding.campaignID == "c1")
        #expect(finding.channel == nil)
        // Expected 25 and 25: chi² = 15²/25 + 15²/25 = 18 with 1 degree of freedom, p ≈ 2.2e-5.
        #expect(finding.evidence["chi2"] == 18)
        #expect(finding.evidence["df"] == 1)
        #expect(try #require(finding.evidence["p_value"]) < 0.001)
        #expect(finding.evidence["users.control"] == 10)
        #expect(finding.evidence["expected_users.control"] == 25)
        #expect(finding.evidence["users.v1"] == 40)
    }

    @Test("A 90/10 control split with no configured split and no sends raises no sample_ratio_mismatch")
    func unknownSplitRaisesNoMismatch() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        for index in 0..<900 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
        }
        for index in 0..<100 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                control: true))
        }
        try scenario.write(events)
        #expect(try findings(scenario, 10, 10).filter { $0.kind == .sampleRatioMismatch } == [])
        let control = try ControlReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(30, "00:00")
        )
        let campaign = try #require(control.campaigns.first)
        #expect(campaign.splitSource == .unknown)
        #expect(campaign.sampleRatio == .skipped(.expectedSplitUnknown))
        #expect(control.render(.table).contains("unknown"))
    }

    @Test("Sends that carry 90/10 and exposures at 50/50 are a sample_ratio_mismatch against the learned split")
    func learnedSplitMismatch() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        // 900 users sent v1, 100 sent control; every control user logs a control impression, only 100 v1 users
        // an impression.
        for index in 0..<900 {
            events.append(event(.send, at: scenario.time(10, "00:00"), user: "v\(index)"))
            if index < 100 {
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
            }
        }
        for index in 0..<100 {
            events.append(event(.send, at: scenario.time(10, "00:00"), user: "c\(index)", variant: nil, control: true))
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                control: true))
        }
        try scenario.write(events)
        let arms = try scenario.session.sendArms(scenario.scope(10, 10))
        #expect(arms.map { "\($0.control ? "control" : $0.variantID ?? "-")=\($0.users)" } == ["control=100", "v1=900"])
        let found = try findings(scenario, 10, 10).filter { $0.kind == .sampleRatioMismatch }
        let finding = try #require(found.first)
        // Expected 20 control and 180 v1 of 200 exposed: chi² = 80²/20 + 80²/180 = 355.56.
        #expect(abs(try #require(finding.evidence["chi2"]) - (320 + 6400.0 / 180)) < 1e-9)
        #expect(finding.evidence["split_configured"] == 0)
        #expect(finding.evidence["send_users.control"] == 100)
        #expect(finding.evidence["expected_users.control"] == 20)
    }

    @Test("A 50/50 configured campaign missing a third of its control users is a sample_ratio_mismatch")
    func configuredSplitMissingAThird() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1"))))
        var events: [Event] = []
        for index in 0..<300 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
            // A third of the control users' impressions are lost.
            if index < 200 {
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                    control: true))
            }
        }
        try scenario.write(events)
        let finding = try #require(try findings(scenario, 10, 10).first { $0.kind == .sampleRatioMismatch })
        // Expected 250 and 250 of 500: chi² = 50²/250 × 2 = 20, p ≈ 7.7e-6.
        #expect(abs(try #require(finding.evidence["chi2"]) - 20) < 1e-9)
        #expect(finding.evidence["split_configured"] == 1)
        #expect(finding.severity == .critical)
    }

    @Test("A clean integration raises no finding at all")
    func cleanDataSet() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1"))
        ))
        var events: [Event] = []
        for index in 0..<20 {
            let user = "u\(index)"
            let session = "s\(index)"
            if index.isMultiple(of: 2) {
                // Control users: a control send and one control impression, nothing else from the card.
                events.append(event(.send, at: scenario.time(10, "00:30"), user: user, variant: nil, control: true))
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: user, variant: nil,
                                    control: true, session: session))
            } else {
                // v1 users: a send, one impression per session, then a click or a dismissal.
                events.append(event(.send, at: scenario.time(10, "00:30"), user: user))
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: user, session: session,
                                    message: "m\(index)"))
                events.append(event(index % 4 == 1 ? .click : .dismissal, at: scenario.time(10, "01:01"),
                                    user: user, session: session))
            }
            // A banner once per session, and a push with an open.
            events.append(event(.impression, .banner, at: scenario.time(10, "01:00"), user: user, campaign: "b1",
                                variant: nil, session: session))
            events.append(event(.send, .push, at: scenario.time(10, "00:00"), user: user, campaign: "p1", variant: nil))
            events.append(event(.click, .push, at: scenario.time(10, "00:10"), user: user, campaign: "p1", variant: nil))
        }
        try scenario.write(events)
        let report = try AnomaliesReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(30, "00:00")
        )
        #expect(report.findings == [])
        // The split was checked (10 against 10) rather than skipped.
        let control = try ControlReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(30, "00:00")
        )
        #expect(control.campaigns.first?.sampleRatio.check?.mismatch == false)
    }
}

extension AnomaliesTests {
    @Test(
        "The report run in parts on several sessions at once is the sequential one, for the app and for a campaign",
        arguments: [nil, "c1"]
    )
    func sideBySideEqualsSequential(campaign: String?) throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFindingOfEveryPart(scenario)
        let url = scenario.database.url
        let scope = scenario.scope(10, 10, campaign: campaign)
        let sequential = try AnomaliesReport.run(
            session: scenario.session, scope: scope, asOf: scenario.time(30, "00:00")
        )
        let sideBySide = try AnomaliesReport.runSideBySide(
            session: scenario.session, openSession: { try ReportSession(connectionString: url) },
            scope: scope, asOf: scenario.time(30, "00:00")
        )
        #expect(sideBySide == sequential)
        #expect(Set(sideBySide.findings.map(\.kind))
            .isSuperset(of: [.sampleRatioMismatch, .dismissalWithoutImpression, .repeatedDismissals]))
    }

    @Test(
        "Every part of the side-by-side report reads the calling session's snapshot, not events committed after it",
        arguments: [nil, "c1"]
    )
    func sideBySideReadsOneSnapshot(campaign: String?) throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFindingOfEveryPart(scenario)
        let scope = scenario.scope(10, 10, campaign: campaign)
        let asOf = scenario.time(30, "00:00")
        let before = try AnomaliesReport.run(session: scenario.session, scope: scope, asOf: asOf)
        // Committed by each part as it opens its session, after the snapshot was exported: a second user's
        // dismissal without impression (the exposure half), a card dismissed twice more (the logging half) and
        // an eleventh control user (the control report). Their ids are fixed, so a second write stores nothing.
        let late = [
            event(.dismissal, at: scenario.time(10, "04:00"), user: "u9", message: "k9"),
            event(.dismissal, at: scenario.time(10, "05:00"), user: "u9", message: "k9"),
            event(.impression, at: scenario.time(10, "01:00"), user: "c10", variant: nil, control: true),
        ].map { EventRecord(appID: scenario.app.id, event: $0, receivedAt: Date()) }
        let url = scenario.database.url
        let sideBySide = try AnomaliesReport.runSideBySide(
            session: scenario.session,
            openSession: {
                _ = try EventWriter(connection: try PostgresConnection(connectionString: url))
                    .write(events: late, rejections: [])
                return try ReportSession(connectionString: url)
            },
            scope: scope, asOf: asOf
        )
        #expect(sideBySide == before)
        let after = try AnomaliesReport.run(session: scenario.session, scope: scope, asOf: asOf)
        #expect(after.findings.first { $0.kind == .dismissalWithoutImpression }?.evidence["users"] == 2)
        #expect(after.findings.first { $0.kind == .repeatedDismissals }?.evidence["affected_users"] == 2)
        #expect(after.findings.first { $0.kind == .sampleRatioMismatch }?.evidence["users.control"] == 11)
    }

    @Test(
        "Parts that cannot open their sessions fail the side-by-side report with that error, for the app or a campaign",
        arguments: [nil, "c1"]
    )
    func sideBySideReportsThePartsError(campaign: String?) throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let scope = scenario.scope(10, 10, campaign: campaign)
        #expect(throws: StoreError.self) {
            try AnomaliesReport.runSideBySide(
                session: scenario.session, openSession: { throw StoreError.appNotFound("elsewhere") },
                scope: scope, asOf: scenario.time(30, "00:00")
            )
        }
    }

    @Test("A calling session that fails fails the side-by-side report with its own error, not its parts'")
    func sideBySideReportsTheCallingSessionsErrorFirst() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // The range ends before it starts: check_report_range refuses it in every part.
        #expect(throws: PostgresError.self) {
            try AnomaliesReport.runSideBySide(
                session: scenario.session, openSession: { throw StoreError.appNotFound("elsewhere") },
                scope: scenario.scope(10, 9), asOf: scenario.time(30, "00:00")
            )
        }
    }

    @Test("The two halves of cardinal.anomalies are its rows, each of its own kinds, with and without test events")
    func halvesMakeTheWhole() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        // Exposure half: u0 dismisses without an impression. Logging half: u0 dismisses card k1 twice.
        events.append(event(.dismissal, at: scenario.time(10, "02:00"), user: "u0", message: "k1"))
        events.append(event(.dismissal, at: scenario.time(10, "03:00"), user: "u0", message: "k1"))
        // The same from a test device, for include_test.
        events.append(event(.dismissal, at: scenario.time(10, "02:00"), user: "t0", message: "k2", test: true))
        events.append(event(.dismissal, at: scenario.time(10, "03:00"), user: "t0", message: "k2", test: true))
        try scenario.write(events)
        let exposureKinds: Set<AnomalyKind> = [
            .dismissalsExceedImpressions, .dismissalWithoutImpression, .clickWithoutImpression,
            .controlImpressionsMissing, .controlInteraction, .usersInSeveralArms,
        ]
        let loggingKinds: Set<AnomalyKind> = [
            .repeatedImpressions, .repeatedDismissals, .pushOpensMissing, .loggingStopped, .controlImpressionsMissing,
            .repeatedConversions,
        ]
        for includeTest in [false, true] {
            let scope = scenario.scope(10, 10, includeTest: includeTest)
            let exposure = try scenario.session.anomalies(scope, half: .exposure)
            let logging = try scenario.session.anomalies(scope, half: .logging)
            #expect(Set(exposure.map(\.kind)).isSubset(of: exposureKinds))
            #expect(Set(logging.map(\.kind)).isSubset(of: loggingKinds))
            #expect(exposure.contains { $0.kind == .dismissalWithoutImpression })
            #expect(logging.contains { $0.kind == .repeatedDismissals })
            let whole = try scenario.session.anomalies(scope)
            // The report's order is the SQL's.
            #expect(AnomaliesReport(scope: scope, findings: whole).findings == whole)
            #expect(AnomaliesReport(scope: scope, findings: exposure + logging).findings == whole)
            let users = logging.first { $0.kind == .repeatedDismissals }?.evidence["users"]
            #expect(users == (includeTest ? 2 : 1))
        }
    }

    /// On day 10, a finding of each part of the side-by-side report: a sample ratio mismatch of c1 (10 control
    /// users against 40 under a 1:1 split, the control report), a dismissal without impression (u0, the exposure
    /// half) and a card dismissed twice (u0 again, the logging half).
    private func writeFindingOfEveryPart(_ scenario: ReportScenario) throws {
        try scenario.settings("c1", CampaignSettingsUpdate(expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1"))))
        var events: [Event] = []
        for index in 0..<40 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
        }
        for index in 0..<10 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                control: true))
        }
        events.append(event(.dismissal, at: scenario.time(10, "02:00"), user: "u0", message: "k1"))
        events.append(event(.dismissal, at: scenario.time(10, "03:00"), user: "u0", message: "k1"))
        try scenario.write(events)
    }
}
