import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// Direct opens, influenced opens and open rates of push rows, on hand-counted scenarios, before and
/// after the fold, and equal to the reference over raw events.
@Suite struct PushOpensTests {
    /// Five users sent a push at 01:00 UTC on day 10 (10:00 in Tokyo): u1 taps it (two open events) and opens
    /// the app; u2 opens the app 5 hours later, u3 exactly 12 hours later, u4 12 hours and 1 second later,
    /// u5 an hour before the send; u6 is in the control group and opens the app. A content card row has no
    /// push columns.
    private func writeScenario(_ scenario: ReportScenario) throws {
        let sent = scenario.time(10, "01:00")
        var events: [Event] = []
        for user in ["u1", "u2", "u3", "u4", "u5"] {
            events.append(event(.send, .push, at: sent, user: user, variant: nil))
        }
        events += [
            event(.send, .push, at: sent, user: "u6", variant: nil, control: true),
            event(.click, .push, at: sent.addingTimeInterval(60), user: "u1", variant: nil),
            event(.click, .push, at: sent.addingTimeInterval(120), user: "u1", variant: nil),
            event(.sessionStart, at: sent.addingTimeInterval(60), user: "u1"),
            event(.sessionStart, at: sent.addingTimeInterval(5 * 3600), user: "u2"),
            event(.sessionStart, at: sent.addingTimeInterval(12 * 3600), user: "u3"),
            event(.sessionStart, at: sent.addingTimeInterval(12 * 3600 + 1), user: "u4"),
            event(.sessionStart, at: sent.addingTimeInterval(-3600), user: "u5"),
            event(.sessionStart, at: sent.addingTimeInterval(60), user: "u6"),
            event(.impression, at: sent, user: "u1", campaign: "card"),
        ]
        try scenario.write(events)
    }

    private func rows(_ scenario: ReportScenario, function: String = "unique_impressions", by: String? = nil)
        throws -> [[String?]]
    {
        try scenario.connection.query(
            """
            select channel, breakdown, direct_opens::text, unique_direct_opens::text, influenced_opens::text,
                   total_opens::text, direct_open_rate::text, total_open_rate::text, unique_recipients::text
            from cardinal.\(function)($1, $2, $3, false, null, $4)
            order by channel, breakdown
            """,
            [ReportScenario.appName, scenario.day(10), scenario.day(11), by]
        ).map { row in try (0..<9).map { try row.decode(String?.self, at: $0) } }
    }

    @Test("Direct opens are push clicks; influenced opens are app opens within 12 hours of a send, ends included")
    func directAndInfluencedOpens() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeScenario(scenario)
        // Recipients u1…u5 (u6 is control) = 5. Direct: 2 clicks by 1 user (u1). Influenced: u2 (5 h) and u3
        // (12 h, the window's end) = 2; u1 opened directly, u4 is a second late, u5 opened before the send.
        // Total 1 + 2 = 3; rates 1/5 = 0.2 and 3/5 = 0.6. The card row has no push columns.
        let expected: [[String?]] = [
            ["content_card", nil, nil, nil, nil, nil, nil, nil, "1"],
            ["push", nil, "2", "1", "2", "3", "0.2", "0.6", "5"],
        ]
        #expect(try rows(scenario) == expected)
        #expect(try rows(scenario, function: "unique_impressions_reference") == expected)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try rows(scenario) == expected)
        // By platform the state is read per user (the other path of unique_impressions): the same numbers.
        #expect(try rows(scenario, by: "platform").map { Array($0[2...]) } == expected.map { Array($0[2...]) })
    }

    @Test("Push dismissals are rated over the unique recipients, before and after the fold and in the reference")
    func pushDismissalRates() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeScenario(scenario)
        // u2 swipes the notification away twice, u3 once: 3 dismissals of 2 users over the 5 recipients, 0.6
        // and 0.4; the card row (one impression, no dismissal) keeps its rates over impressions: 0.
        let dismissed = scenario.time(10, "02:00")
        try scenario.write([
            event(.dismissal, .push, at: dismissed, user: "u2", variant: nil),
            event(.dismissal, .push, at: dismissed.addingTimeInterval(60), user: "u2", variant: nil),
            event(.dismissal, .push, at: dismissed, user: "u3", variant: nil),
        ])
        func rates(_ function: String, by: String? = nil) throws -> [[String?]] {
            try scenario.connection.query(
                """
                select channel, dismissals::text, unique_dismissals::text, dismissal_rate::text,
                       unique_dismissal_rate::text, click_rate::text
                from cardinal.\(function)($1, $2, $3, false, null, $4)
                order by channel
                """,
                [ReportScenario.appName, scenario.day(10), scenario.day(11), by]
            ).map { row in try (0..<6).map { try row.decode(String?.self, at: $0) } }
        }
        let expected: [[String?]] = [
            ["content_card", "0", "0", "0", "0", "0"],
            ["push", "3", "2", "0.6", "0.4", nil],
        ]
        #expect(try rates("unique_impressions") == expected)
        #expect(try rates("unique_impressions_reference") == expected)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try rates("unique_impressions") == expected)
        #expect(try rates("unique_impressions", by: "platform") == expected)
    }

    @Test("Push deliveries are counted per row and rated over the sends, before and after the fold and in the reference")
    func pushDeliveries() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeScenario(scenario)
        // u1's device reports the push received twice, u2's once: 3 deliveries on day 10, over its 5 sends (u6's
        // control send is not one) 0.6. u4's arrives at 16:00 UTC, 01:00 on day 11 in Tokyo: in the range, 4 of 5
        // = 0.8, but on a day where the push has no send, click or dismissal to make a row of its own. The card
        // row has no push columns; split by button, the push's one row (u1 tapped the body) has the message's.
        let sent = scenario.time(10, "01:00")
        try scenario.write([
            event(.delivery, .push, at: sent.addingTimeInterval(30), user: "u1", variant: nil),
            event(.delivery, .push, at: sent.addingTimeInterval(40), user: "u1", variant: nil),
            event(.delivery, .push, at: sent.addingTimeInterval(30), user: "u2", variant: nil),
            event(.delivery, .push, at: scenario.time(10, "16:00"), user: "u4", variant: nil),
        ])
        func deliveries(_ function: String, by: String? = nil) throws -> [[String?]] {
            try scenario.connection.query(
                """
                select channel, breakdown, deliveries::text, delivery_rate::text
                from cardinal.\(function)($1, $2, $3, false, null, $4)
                order by channel, breakdown
                """,
                [ReportScenario.appName, scenario.day(10), scenario.day(11), by]
            ).map { row in try (0..<4).map { try row.decode(String?.self, at: $0) } }
        }
        let whole: [[String?]] = [["content_card", nil, nil, nil], ["push", nil, "4", "0.8"]]
        let byDay: [[String?]] = [
            ["content_card", scenario.day(10).description, nil, nil],
            ["push", scenario.day(10).description, "3", "0.6"],
        ]
        for function in ["unique_impressions", "unique_impressions_reference"] {
            #expect(try deliveries(function) == whole)
            #expect(try deliveries(function, by: "day") == byDay)
            #expect(try deliveries(function, by: "button_id") == whole)
        }
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try deliveries("unique_impressions") == whole)
        #expect(try deliveries("unique_impressions", by: "day") == byDay)
        #expect(try deliveries("unique_impressions", by: "button_id") == whole)
    }

    @Test("The campaign's influenced_open_window replaces the 12 hours")
    func configuredWindow() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeScenario(scenario)
        try scenario.connection.execute(
            """
            insert into cardinal.campaign_settings (app_id, campaign_id, influenced_open_window)
            select app_id, 'c1', interval '6 hours' from cardinal.apps where name = $1
            """,
            [ReportScenario.appName]
        )
        // Within 6 hours only u2 (5 h): influenced 1, total 2, total rate 2/5.
        let push = try #require(try rows(scenario).last)
        #expect(Array(push[4...7]) == ["1", "2", "0.2", "0.4"])
        #expect(try rows(scenario, function: "unique_impressions_reference").last == push)
    }

    @Test("A window of one day ends at the same local time the next day in the campaign's zone, whatever the session's")
    func windowDaysFollowTheCampaignsCalendar() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // Berlin's last change of clocks (one every seven months at most), and a send 12 hours before it: the
        // local day after the send is 23 or 25 hours long, and the window ends at the send's local time of
        // the next day, computed here with Foundation's calendar.
        let change = try #require(berlin.nextDaylightSavingTimeTransition(after: Date() - 300 * 86_400))
        let sent = change - 12 * 3600
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let end = try #require(calendar.date(byAdding: .day, value: 1, to: sent))
        #expect(end.timeIntervalSince(sent) != 86_400)
        try scenario.connection.execute(
            """
            insert into cardinal.campaign_settings (app_id, campaign_id, influenced_open_window, report_time_zone)
            select app_id, 'c1', interval '1 day', 'Europe/Berlin' from cardinal.apps where name = $1
            """,
            [ReportScenario.appName]
        )
        // u1 opens the app at the window's end (counted, both ends included), u2 a second later (not counted).
        try scenario.write([
            event(.send, .push, at: sent, user: "u1", variant: nil),
            event(.send, .push, at: sent, user: "u2", variant: nil),
            event(.sessionStart, at: end, user: "u1"),
            event(.sessionStart, at: end + 1, user: "u2"),
        ])
        let sentDay = ReportDate(utcDayOf: sent)
        for session in ["UTC", "Asia/Tokyo"] {
            try scenario.connection.execute("set time zone '\(session)'", [])
            for function in ["unique_impressions", "unique_impressions_reference"] {
                let influenced = try scenario.connection.query(
                    """
                    select influenced_opens from cardinal.\(function)($1, $2, $3, false, null, null)
                    where channel = 'push'
                    """,
                    [ReportScenario.appName, sentDay.adding(days: -1), sentDay.adding(days: 1)]
                ).first?.decode(Int64.self, at: 0)
                #expect(influenced == 1, "\(function) under \(session)")
            }
        }
    }
}
