import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// report_window_end: a conversion window added as a session in the campaign's report time zone adds it.
@Suite struct ReportWindowEndTests {
    /// The window's end for a start and window given as text, read back in UTC.
    private func windowEnd(
        _ scenario: ReportScenario, start: String, window: String, zone: String
    ) throws -> String {
        try scenario.connection.query(
            """
            select to_char(cardinal.report_window_end($1::timestamptz, $2::interval, $3) at time zone 'UTC',
                           'YYYY-MM-DD HH24:MI')
            """,
            [start, window, zone]
        ).first!.decode(String.self, at: 0)
    }

    @Test("A window across a daylight-saving change ends at the same local time, whatever the session's zone")
    func windowEndsOnTheCampaignsWallClock() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // Berlin moved from UTC+1 to UTC+2 on 2026-03-29: noon local on the 28th is 11:00 UTC, noon on the 29th
        // is 10:00 UTC, so one local day is 23 hours here.
        for session in ["UTC", "Asia/Tokyo", "America/New_York"] {
            try scenario.connection.execute("set time zone '\(session)'", [])
            #expect(
                try windowEnd(scenario, start: "2026-03-28 11:00Z", window: "1 day", zone: "Europe/Berlin")
                    == "2026-03-29 10:00"
            )
        }
        // Hours are elapsed time, after the days: 24 of them end at 11:00 UTC, 13:00 local; 1 day 2 hours at 12:00
        // UTC, 14:00 local.
        #expect(
            try windowEnd(scenario, start: "2026-03-28 11:00Z", window: "24 hours", zone: "Europe/Berlin")
                == "2026-03-29 11:00"
        )
        #expect(
            try windowEnd(scenario, start: "2026-03-28 11:00Z", window: "1 day 2 hours", zone: "Europe/Berlin")
                == "2026-03-29 12:00"
        )
        // Without a change the local day is 24 hours, as in UTC.
        #expect(
            try windowEnd(scenario, start: "2026-03-10 11:00Z", window: "3 days", zone: "Europe/Berlin")
                == "2026-03-13 11:00"
        )
    }
}
