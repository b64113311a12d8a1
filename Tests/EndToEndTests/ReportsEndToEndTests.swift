import Foundation
import PostgresClient
import Testing
import TestSupport

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
            "direct_opens", "unique_direct_opens", "influenced_opens", "total_opens", "direct_open_rate",
            "total_open_rate", "deliveries", "delivery_rate",
        ])
        // The push columns are null on a content card row.
        #expect(v1["influenced_opens"] is NSNull)
        #expect(v1["deliveries"] is NSNull)
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

    /// Campaign `spring` again, with purchases before exposure for CUPED, as `(x, y)` per user: a1 (v1) buys an
    /// hour before exposure and 30 min after (1, 1); a2 (v1) buys 20 min after (0, 1); a3 (control) buys two hours
    /// before and 40 min after (1, 1); a4 (control) buys nothing (0, 0).
    private static let cupedCampaign: [TestEvent] = [
        event("conversion", user: "a1", minutes: -60, extra: #","name":"purchase""#),
        event("impression", user: "a1", minutes: 0, extra: #","variant_id":"v1""#),
        event("conversion", user: "a1", minutes: 30, extra: #","name":"purchase""#),
        event("impression", user: "a2", minutes: 0, extra: #","variant_id":"v1""#),
        event("conversion", user: "a2", minutes: 20, extra: #","name":"purchase""#),
        event("conversion", user: "a3", minutes: -120, extra: #","name":"purchase""#),
        event("impression", user: "a3", minutes: 0, extra: #","control":true"#),
        event("conversion", user: "a3", minutes: 40, extra: #","name":"purchase""#),
        event("impression", user: "a4", minutes: 0, extra: #","control":true"#),
    ]

    @Test("control --cuped adjusts the lift by CUPED on the purchases in the campaign's --cuped-window before exposure, and without it leaves CUPED out")
    func controlReportCUPED() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        #expect(try fixture.client(of: daemon).ingest(Self.cupedCampaign).counts == .accepted(Self.cupedCampaign.count))
        daemon.stop()
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring", "--conversion", "purchase",
            "--window", "1h", "--cuped-window", "1d", "--database-url", fixture.database.url,
        ])
        let json = try report(fixture, ["control", "--campaign", "spring", "--cuped"])
        let spring = try #require((json["campaigns"] as? [[String: Any]])?.first)
        #expect(spring["cuped_window_days"] as? Double == 1)
        // Over the four users x = 1, 0, 1, 0 and y = 1, 1, 1, 0: Cov(x, y) = (2 − 2·3/4)/3 = 1/6, Var(x) =
        // (2 − 2²/4)/3 = 1/3, θ = 1/2. Both arms' x̄ is 1/2, so the difference stays 1 − 1/2 = 1/2 and the lift
        // 1/2 ÷ 1/2 = 1. Adjusted per-user variances: control 1/2 + θ²·1/2 − 2θ·1/2 = 1/8, v1 0 + θ²·1/2 − 0 =
        // 1/8; V = 1/16 + 1/16 = 1/8 against 1/4 + 0 unadjusted: a variance reduction of 1/2. Interval
        // 1/2 ± 1.959964·√(1/8) = 1/2 ± 0.692951; z = (1/2)/√(1/8) = √2, p = 2(1 − Φ(√2)) = 0.157299.
        let comparison = try #require((spring["comparisons"] as? [[String: Any]])?.first)
        let cuped = try #require(comparison["cuped"] as? [String: Any])
        #expect(abs((cuped["theta"] as? Double ?? -1) - 0.5) < 1e-9)
        #expect(abs((cuped["difference"] as? Double ?? -1) - 0.5) < 1e-9)
        #expect(abs((cuped["relative_lift"] as? Double ?? -1) - 1) < 1e-9)
        #expect(abs((cuped["variance_reduction"] as? Double ?? -1) - 0.5) < 1e-9)
        let interval = try #require(cuped["difference_ci95"] as? [Double])
        #expect(interval.count == 2 && abs(interval[0] - -0.192951) < 1e-6 && abs(interval[1] - 1.192951) < 1e-6)
        #expect(abs((cuped["p_value"] as? Double ?? -1) - 0.157299) < 1e-6)

        // Without --cuped the report reads no pre-exposure conversions and says nothing of CUPED.
        let plain = try report(fixture, ["control", "--campaign", "spring"])
        let plainSpring = try #require((plain["campaigns"] as? [[String: Any]])?.first)
        #expect(plainSpring["cuped_window_days"] is NSNull)
        #expect((plainSpring["comparisons"] as? [[String: Any]])?.first?["cuped"] is NSNull)

        // The CSV carries the same numbers in its cuped_ columns, on the variant's row.
        let csv = try CardinalCLI.succeed([
            "report", "control", "--campaign", "spring", "--app", IngestFixture.appName, "--from", Self.yesterday,
            "--to", Self.yesterday, "--format", "csv", "--cuped", "--database-url", fixture.database.url,
        ]).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(csv.first)
        let column = try #require(header.firstIndex(of: "cuped_variance_reduction"))
        let variantRow = try #require(csv.first { $0.count == header.count && $0[4] == "v1" })
        #expect(abs((Double(variantRow[column]) ?? -1) - 0.5) < 1e-9, "\(variantRow)")
        let controlRow = try #require(csv.first { $0.count == header.count && $0[4] == "control" })
        #expect(controlRow[column].isEmpty, "\(controlRow)")
    }

    @Test("report run --cuped stores the CUPED numbers of control --cuped in latest_control and on the campaign page; without it they stay NULL")
    func storedRunCUPED() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        #expect(try fixture.client(of: daemon).ingest(Self.cupedCampaign).counts == .accepted(Self.cupedCampaign.count))
        daemon.stop()
        let url = fixture.database.url
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring", "--conversion", "purchase",
            "--window", "1h", "--cuped-window", "1d", "--database-url", url,
        ])
        let pages = FileManager.default.temporaryDirectory.appending(path: "cardinal-cuped-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: pages) }
        try CardinalCLI.succeed(["report", "run", "--cuped", "--since", Self.yesterday, "--html", pages.path,
                                 "--database-url", url])
        // The numbers worked out in controlReportCUPED: θ 1/2, difference 1/2 in [−0.192951, 1.192951], lift 1,
        // p 0.157299, variance reduction 1/2, over the campaign's 1-day window.
        let connection = try fixture.database.connect()
        let columns: PostgresQuery = """
            cuped_window::text, cuped_theta, cuped_difference, cuped_difference_ci95_lower, cuped_difference_ci95_upper,
            cuped_lift, cuped_p_value, cuped_variance_reduction
            """
        let stored = try connection.query("select control, \(columns) from cardinal.latest_control order by position")
        #expect(stored.count == 2)
        let control = try #require(stored.first)
        #expect(try control.decode(String?.self, column: "cuped_window") == "1 day")
        #expect(try control.decode(Double?.self, column: "cuped_difference") == nil)
        let variant = try #require(stored.last)
        #expect(try variant.decode(String?.self, column: "cuped_window") == "1 day")
        let expected: [(String, Double)] = [
            ("cuped_theta", 0.5), ("cuped_difference", 0.5), ("cuped_difference_ci95_lower", -0.192951),
            ("cuped_difference_ci95_upper", 1.192951), ("cuped_lift", 1), ("cuped_p_value", 0.157299),
            ("cuped_variance_reduction", 0.5),
        ]
        for (column, value) in expected {
            let found = try #require(try variant.decode(Double?.self, column: column), "\(column) is NULL")
            #expect(abs(found - value) < 1e-6, "\(column) is \(found), not \(value)")
        }
        let pageName = try #require(try FileManager.default.contentsOfDirectory(atPath: pages.path)
            .first { $0.hasPrefix("campaign-") && $0.hasSuffix("spring.html") })
        let page = try String(contentsOf: pages.appending(path: pageName), encoding: .utf8)
        #expect(page.contains("Adjusted by CUPED on each user's conversions in the 1d before exposure"))
        #expect(page.contains("<td class=\"number\">0.1573</td><td class=\"number\">0.5000</td>"), "\(page)")

        // A nightly run without --cuped reads no covariate: its rows have no CUPED number.
        try CardinalCLI.succeed(["report", "run", "--since", Self.yesterday, "--database-url", url])
        let plain = try connection.query(
            "select \(columns) from cardinal.latest_control where cuped_window is not null or cuped_theta is not null"
        )
        #expect(plain.isEmpty)
    }

    /// An event of step `step` of canvas `onboarding` at `minutes` after yesterday noon.
    private static func canvasEvent(_ type: String, user: String, step: String, minutes: Double, extra: String) -> TestEvent {
        let id = UUID()
        let time = EpochMilliseconds.rfc3339(noon.addingTimeInterval(minutes * 60))
        return TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"\(type)","time":"\(time)","user_id":"\(user)","channel":"content_card",\
            "canvas_id":"onboarding","canvas_step_id":"\(step)"\(extra)}
            """)
    }

    @Test("control --canvas compares a canvas's arms over its steps on each conversion event; --campaign with it is refused")
    func canvasControlReport() throws {
        let fixture = try IngestFixture()
        // c1 (v1) sees steps s1 and s2, buys at +30 and signs up at +35; c2 (v1) sees s2 only; c3 and c4 are
        // control, c3 buys at +40. The window is one hour, so all of it counts.
        let events = [
            Self.canvasEvent("impression", user: "c1", step: "s1", minutes: 0, extra: #","variant_id":"v1""#),
            Self.canvasEvent("impression", user: "c1", step: "s2", minutes: 10, extra: #","variant_id":"v1""#),
            Self.event("conversion", user: "c1", minutes: 30, extra: #","name":"purchase""#),
            Self.event("conversion", user: "c1", minutes: 35, extra: #","name":"signup""#),
            Self.canvasEvent("impression", user: "c2", step: "s2", minutes: 0, extra: #","variant_id":"v1""#),
            Self.canvasEvent("impression", user: "c3", step: "s1", minutes: 0, extra: #","control":true"#),
            Self.event("conversion", user: "c3", minutes: 40, extra: #","name":"purchase""#),
            Self.canvasEvent("impression", user: "c4", step: "s1", minutes: 0, extra: #","control":true"#),
        ]
        let daemon = try fixture.startDaemon()
        #expect(try fixture.client(of: daemon).ingest(events).counts == .accepted(events.count))
        daemon.stop()
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "onboarding",
            "--conversions", "purchase,signup", "--window", "1h", "--database-url", fixture.database.url,
        ])
        let json = try report(fixture, ["control", "--canvas", "onboarding"])
        let canvases = try #require(json["campaigns"] as? [[String: Any]])
        #expect(canvases.count == 1)
        let canvas = try #require(canvases.first)
        #expect(canvas["campaign_id"] is NSNull)
        #expect(canvas["canvas_id"] as? String == "onboarding")
        #expect(canvas["conversion_event"] as? String == "purchase")
        // purchase: control {c3, c4} 1 buyer, v1 {c1, c2} 1 buyer (c1 once, for two steps).
        let arms = try #require(canvas["arms"] as? [[String: Any]])
        #expect(arms.map { $0["users"] as? Int } == [2, 2])
        #expect(arms.map { $0["converters"] as? Int } == [1, 1])
        // signup: nobody in control, c1 in v1: 0/2 against 1/2, difference 0.5.
        let conversions = try #require(canvas["conversions"] as? [[String: Any]])
        let signup = try #require(conversions.first)
        #expect(signup["conversion_event"] as? String == "signup")
        #expect(signup["ordinal"] as? Int == 2)
        #expect((signup["arms"] as? [[String: Any]])?.map { $0["converters"] as? Int } == [0, 1])
        let comparison = try #require((signup["comparisons"] as? [[String: Any]])?.first)
        #expect(abs((comparison["difference"] as? Double ?? -1) - 0.5) < 1e-9)

        let both = try CardinalCLI.run([
            "report", "control", "--campaign", "spring", "--canvas", "onboarding", "--database-url", fixture.database.url,
        ])
        #expect(both.exitStatus == 64)
        #expect(both.standardError.contains("--campaign and --canvas"), "\(both.standardError)")
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

    @Test("anomalies names the canvas step of a finding, and --canvas keeps only that canvas's steps")
    func canvasStepAnomalies() throws {
        let fixture = try IngestFixture()
        try postCampaign(fixture)
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        // u5 dismisses a card of campaign spring, and one of canvas step onboarding/welcome, without seeing
        // either: a dismissal_without_impression for each source.
        let time = EpochMilliseconds.rfc3339(Self.noon)
        let id = UUID()
        let canvasDismissal = TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"dismissal","time":"\(time)","user_id":"u5","channel":"content_card",\
            "canvas_id":"onboarding","canvas_step_id":"welcome"}
            """)
        let campaignDismissal = Self.event("dismissal", user: "u5", minutes: 3, extra: #","variant_id":"v1""#)
        #expect(try fixture.client(of: daemon).ingest([canvasDismissal, campaignDismissal]).counts == .accepted(2))

        func dismissals(_ arguments: [String]) throws -> [[String: Any]] {
            try #require(try report(fixture, ["anomalies"] + arguments)["findings"] as? [[String: Any]])
                .filter { $0["kind"] as? String == "dismissal_without_impression" }
        }
        // The campaign's finding first (u2 saw before dismissing, u5 did not: 1 of 2), then the step's (1 of 1).
        let all = try dismissals([])
        #expect(all.map { $0["campaign_id"] as? String } == ["spring", nil])
        #expect(all.map { $0["canvas_id"] as? String } == [nil, "onboarding"])
        #expect(all.map { $0["canvas_step_id"] as? String } == [nil, "welcome"])
        #expect(all.map { ($0["evidence"] as? [String: Any])?["users"] as? Int } == [2, 1])

        let canvas = try dismissals(["--canvas", "onboarding"])
        #expect(canvas.map { $0["canvas_step_id"] as? String } == ["welcome"])

        let both = try CardinalCLI.run([
            "report", "anomalies", "--campaign", "spring", "--canvas", "onboarding", "--database-url",
            fixture.database.url,
        ])
        #expect(both.exitStatus == 64)
        #expect(both.standardError.contains("--campaign and --canvas"))
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

/// `cardinal report run --html DIR` over the posted campaign: the files, their contents, and how headless
/// Chromium reads them.
extension ReportsEndToEndTests {
    /// Posts the campaign, makes it an experiment, runs the job with `--html` and returns the directory.
    private func writePages(_ fixture: IngestFixture) throws -> URL {
        try postCampaign(fixture)
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring", "--conversion", "purchase",
            "--window", "1h", "--database-url", fixture.database.url,
        ])
        let directory = FileManager.default.temporaryDirectory.appending(path: "cardinal-pages-\(UUID().uuidString)")
        let runID = try CardinalCLI.succeed([
            "report", "run", "--app", IngestFixture.appName, "--since", Self.yesterday, "--html", directory.path,
            "--database-url", fixture.database.url,
        ])
        #expect(Int64(runID.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
        return directory
    }

    @Test("report run --html writes an index linking a self-contained page per campaign with its charts")
    func htmlPages() throws {
        let fixture = try IngestFixture()
        let directory = try writePages(fixture)
        defer { try? FileManager.default.removeItem(at: directory) }

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["campaign-0001-\(IngestFixture.appName.lowercased())-spring.html", "index.html"])
        let index = try String(contentsOf: directory.appending(path: "index.html"), encoding: .utf8)
        #expect(index.contains("href=\"\(names[0])\">spring</a>"))
        let page = try String(contentsOf: directory.appending(path: names[0]), encoding: .utf8)
        // Four daily charts, each with the one variant that has impressions (control is shown nothing).
        #expect(page.components(separatedBy: "<svg class=\"chart line-chart\"").count - 1 == 4)
        #expect(page.components(separatedBy: "<g class=\"series\" data-series=\"v1\"").count - 1 == 4)
        // v1 had 3 impressions on the one day: u1 twice, u2 once.
        #expect(page.contains("<tr><td>\(Self.yesterday)</td><td class=\"number\">3</td></tr>"))
        // One forest-plot row for v1, and the comparison's columns for both arms.
        #expect(page.components(separatedBy: "<g class=\"interval-row\" data-label=\"v1\"").count - 1 == 3)
        #expect(page.contains("<tr class=\"control\"><th scope=\"row\">control</th><td class=\"number\">2</td>"))
        // The cumulative lift: one chart for v1; by the end of yesterday both arms had matured (1 h window after
        // noon) with 1 converter of 2 each, a lift of 0.
        #expect(page.components(separatedBy: "<svg class=\"chart line-chart lift-chart\"").count - 1 == 1)
        #expect(page.contains("<tr><td>\(Self.yesterday)</td><td class=\"number\">0%</td>"))
        // Self-contained: nothing is fetched from anywhere.
        for html in [index, page] {
            #expect(!html.contains("src="))
            #expect(!html.contains("http"))
            #expect(!html.contains("url("))
        }
    }

    @Test("Headless Chromium opens a campaign page without console errors and finds every chart in the DOM")
    func pagesInChromium() throws {
        let chromium = URL(filePath: "/usr/bin/chromium")
        guard FileManager.default.isExecutableFile(atPath: chromium.path) else {
            throw SetupFailure(description: "chromium is missing: apt-get install chromium")
        }
        let fixture = try IngestFixture()
        let directory = try writePages(fixture)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appending(path: "campaign-0001-\(IngestFixture.appName.lowercased())-spring.html")
        // --no-sandbox: the tests may run as root, where Chromium refuses its sandbox.
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
        let dom = try ChildProcess.run(chromium, common + ["--dump-dom", page.absoluteString], timeout: .seconds(120))
        #expect(dom.exitStatus == 0)
        #expect(dom.standardOutput.components(separatedBy: "<svg class=\"chart line-chart\"").count - 1 == 4)
        #expect(dom.standardOutput.components(separatedBy: "<svg class=\"chart forest-plot\"").count - 1 == 1)
        #expect(dom.standardOutput.components(separatedBy: "<svg class=\"chart rate-plot\"").count - 1 == 2)
        #expect(dom.standardOutput.components(separatedBy: "<svg class=\"chart line-chart lift-chart\"").count - 1 == 1)
        #expect(!dom.standardError.contains("CONSOLE"))

        let screenshot = directory.appending(path: "page.png")
        let shot = try ChildProcess.run(
            chromium, common + ["--window-size=375,1800", "--screenshot=\(screenshot.path)", page.absoluteString],
            timeout: .seconds(120)
        )
        #expect(shot.exitStatus == 0)
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
