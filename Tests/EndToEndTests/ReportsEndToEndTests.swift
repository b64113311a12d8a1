import Foundation
import Testing

/// Events posted over HTTP to the real daemon, then the reports of the real `cardinal` binary read back as JSON,
/// field by field. Every expected number is worked out by hand in the comments.
@Suite struct ReportsEndToEndTests {
    /// Yesterday 12:00 UTC: every event falls on that one report day (the app's zone is UTC), and a one-hour
    /// conversion window after it has matured by now.
    private static let noon: Date = {
        let startOfToday = floor(Date.now.timeIntervalSince1970 / 86_400) * 86_400
        return Date(timeIntervalSince1970: startOfToday - 86_400 + 12 * 3600)
    }()

    private static var yesterday: String { String(EpochMilliseconds.rfc3339(noon).prefix(10)) }

    /// An event of campaign `spring` at `minutes` after yesterday noon.
    private static func event(_ type: String, user: String, minutes: Double, extra: String = "") -> TestEvent {
        let id = UUID()
        let time = EpochMilliseconds.rfc3339(noon.addingTimeInterval(minutes * 60))
        let channel = type == "conversion" ? "" : #","channel":"content_card","campaign_id":"spring""#
        return TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"\(type)","time":"\(time)","user_id":"\(user)"\(channel)\(extra)}
            """)
    }

    /// The campaign as the tests post it:
    /// - u1 (variant v1): impression at 0 and again at +5 min, click at +6, purchase at +30 (inside the 1 h window);
    /// - u2 (v1): impression at 0, dismissal at +2, no purchase;
    /// - u3 (control): control impression at 0, purchase at +40 (inside the window);
    /// - u4 (control): control impression at 0, no purchase.
    private static let campaign: [TestEvent] = [
        event("impression", user: "u1", minutes: 0, extra: #","variant_id":"v1""#),
        event("impression", user: "u1", minutes: 5, extra: #","variant_id":"v1""#),
        event("click", user: "u1", minutes: 6, extra: #","variant_id":"v1""#),
        event("conversion", user: "u1", minutes: 30, extra: #","name":"purchase""#),
        event("impression", user: "u2", minutes: 0, extra: #","variant_id":"v1""#),
        event("dismissal", user: "u2", minutes: 2, extra: #","variant_id":"v1""#),
        event("impression", user: "u3", minutes: 0, extra: #","control":true"#),
        event("conversion", user: "u3", minutes: 40, extra: #","name":"purchase""#),
        event("impression", user: "u4", minutes: 0, extra: #","control":true"#),
    ]

    private func postCampaign(_ fixture: IngestFixture) throws {
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        #expect(try client.ingest(Self.campaign).counts == .accepted(Self.campaign.count))
        // A retried batch must not change a single number of the reports.
        #expect(try client.ingest(Self.campaign).counts.duplicates == Self.campaign.count)
    }

    private func report(_ fixture: IngestFixture, _ arguments: [String]) throws -> [String: Any] {
        let output = try CardinalCLI.succeed(
            ["report"] + arguments + ["--app", IngestFixture.appName, "--from", Self.yesterday, "--to", Self.yesterday,
                                      "--format", "json", "--database-url", fixture.database.url]
        )
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test("unique-impressions over events posted through the daemon counts each user once and leaves control out")
    func uniqueImpressionsReport() throws {
        let fixture = try IngestFixture()
        try postCampaign(fixture)
        let json = try report(fixture, ["unique-impressions"])

        #expect(json["report"] as? String == "unique-impressions")
        #expect(json["from"] as? String == Self.yesterday)
        #expect(json["to"] as? String == Self.yesterday)
        let rows = try #require(json["rows"] as? [[String: Any]])
        // Control impressions (u3, u4) are exposures of the control arm, never impressions.
        #expect(rows.map { ($0["impressions"] as? Int) ?? 0 }.reduce(0, +) == 3)
        let v1 = try #require(rows.first { $0["variant_id"] as? String == "v1" })
        #expect(Set(v1.keys) == [
            "app", "campaign_id", "canvas_step_id", "variant_id", "channel", "impressions", "unique_impressions",
            "unique_daily_impressions", "unique_recipients", "clicks", "unique_clicks", "dismissals",
            "unique_dismissals", "click_rate", "unique_click_rate", "dismissal_rate", "unique_dismissal_rate",
        ])
        #expect(v1["app"] as? String == IngestFixture.appName)
        #expect(v1["campaign_id"] as? String == "spring")
        #expect(v1["canvas_step_id"] is NSNull)
        #expect(v1["channel"] as? String == "content_card")
        #expect(v1["impressions"] as? Int == 3)                 // u1 twice, u2 once
        #expect(v1["unique_impressions"] as? Int == 2)          // u1, u2
        #expect(v1["unique_daily_impressions"] as? Int == 2)    // one day, two users
        #expect(v1["unique_recipients"] as? Int == 2)           // a content card is received when viewed
        #expect(v1["clicks"] as? Int == 1)
        #expect(v1["unique_clicks"] as? Int == 1)
        #expect(v1["dismissals"] as? Int == 1)
        #expect(v1["unique_dismissals"] as? Int == 1)
        #expect(abs((v1["click_rate"] as? Double ?? -1) - 1.0 / 3.0) < 1e-9)          // 1 click / 3 impressions
        #expect(abs((v1["unique_click_rate"] as? Double ?? -1) - 0.5) < 1e-9)         // 1 / 2
        #expect(abs((v1["dismissal_rate"] as? Double ?? -1) - 1.0 / 3.0) < 1e-9)
        #expect(abs((v1["unique_dismissal_rate"] as? Double ?? -1) - 0.5) < 1e-9)
    }

    @Test("control compares matured users' conversions per arm, from events posted through the daemon")
    func controlReport() throws {
        let fixture = try IngestFixture()
        try postCampaign(fixture)
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring", "--conversion", "purchase",
            "--window", "1h", "--split", "control=1,v1=1", "--database-url", fixture.database.url,
        ])
        let json = try report(fixture, ["control", "--campaign", "spring"])

        #expect(json["report"] as? String == "control")
        let campaigns = try #require(json["campaigns"] as? [[String: Any]])
        #expect(campaigns.count == 1)
        let spring = try #require(campaigns.first)
        #expect(spring["app"] as? String == IngestFixture.appName)
        #expect(spring["campaign_id"] as? String == "spring")
        #expect(spring["conversion_event"] as? String == "purchase")
        #expect(abs((spring["window_days"] as? Double ?? -1) - 1.0 / 24.0) < 1e-9)
        #expect(spring["as_of"] is String)

        // v1: u1 converts 30 min after exposure, u2 never: 1 of 2. Control: u3 converts 40 min after its
        // control impression, u4 never: 1 of 2.
        let arms = try #require(spring["arms"] as? [[String: Any]])
        let control = try #require(arms.first { $0["control"] as? Bool == true })
        let variant = try #require(arms.first { $0["variant_id"] as? String == "v1" })
        #expect(control["users"] as? Int == 2)
        #expect(control["converters"] as? Int == 1)
        #expect(abs((control["rate"] as? Double ?? -1) - 0.5) < 1e-9)
        #expect(variant["users"] as? Int == 2)
        #expect(variant["converters"] as? Int == 1)
        #expect(variant["control"] as? Bool == false)

        // Equal rates: difference 0, lift 0, z 0, two-sided p 1, Φ(0) = 0.5, and by symmetry of the two
        // Beta(2, 2) posteriors a chance to beat control of exactly 0.5.
        let comparison = try #require((spring["comparisons"] as? [[String: Any]])?.first)
        #expect(comparison["variant_id"] as? String == "v1")
        #expect(abs((comparison["difference"] as? Double ?? -1) - 0) < 1e-9)
        #expect(abs((comparison["relative_lift"] as? Double ?? -1) - 0) < 1e-9)
        #expect(abs((comparison["z"] as? Double ?? -1) - 0) < 1e-9)
        #expect(abs((comparison["p_value"] as? Double ?? -1) - 1) < 1e-9)
        #expect(abs((comparison["p_value_holm"] as? Double ?? -1) - 1) < 1e-9)
        #expect(abs((comparison["confidence"] as? Double ?? -1) - 0.5) < 1e-9)
        #expect(abs((comparison["chance_to_beat_control"] as? Double ?? -1) - 0.5) < 1e-6)
        let interval = try #require(comparison["difference_ci95"] as? [Double])
        #expect(interval.count == 2 && interval[0] < 0 && interval[1] > 0)
        // Two users per arm expect 2 each, below the 8 the chi-square test needs: no SRM verdict.
        #expect(spring["srm"] is NSNull)
    }

    @Test("anomalies finds nothing on a clean integration and points at a dismissal logged without an impression")
    func anomaliesReport() throws {
        let fixture = try IngestFixture()
        try postCampaign(fixture)
        #expect(try #require(try report(fixture, ["anomalies"])["findings"] as? [Any]).isEmpty)

        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let stray = Self.event("dismissal", user: "u5", minutes: 3,
                               extra: #","variant_id":"v1","platform":"android","sdk_version":"5.1.0","app_version":"2.0""#)
        #expect(try fixture.client(of: daemon).ingest([stray]).counts == .accepted(1))

        let findings = try #require(try report(fixture, ["anomalies"])["findings"] as? [[String: Any]])
        let finding = try #require(findings.first { $0["kind"] as? String == "dismissal_without_impression" })
        #expect(finding["app"] as? String == IngestFixture.appName)
        #expect(finding["campaign_id"] as? String == "spring")
        #expect(finding["channel"] as? String == "content_card")
        #expect(finding["platform"] as? String == "android")
        #expect(finding["sdk_version"] as? String == "5.1.0")
        #expect(finding["app_version"] as? String == "2.0")
        #expect(["info", "warning", "critical"].contains(finding["severity"] as? String ?? ""))
        #expect(finding["evidence"] is [String: Any])
        #expect(!(finding["likely_cause"] as? String ?? "").isEmpty)
    }

    @Test("report tables of an app without events say there is nothing for it instead of printing a bare header")
    func emptyReportTables() throws {
        let fixture = try IngestFixture()
        func table(_ name: String) throws -> String {
            try CardinalCLI.succeed([
                "report", name, "--app", IngestFixture.appName, "--from", Self.yesterday, "--to", Self.yesterday,
                "--database-url", fixture.database.url,
            ])
        }
        let covered = "app \(IngestFixture.appName), every campaign, \(Self.yesterday) to \(Self.yesterday)."
        #expect(try table("unique-impressions") == "No rows for \(covered)\n")
        #expect(try table("anomalies") == "No findings for \(covered)\n")
    }
}
