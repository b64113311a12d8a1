import Foundation
import PostgresClient
import Testing
import TestSupport

/// A campaign's significance rule set with the real `cardinal`, the control report judging by it, `--fail-on
/// warning` stopping on a harmful variant, and a stored run keeping the rule and the always-valid numbers.
///
/// Campaign `spring`, yesterday noon: 100 control users (control impressions) of whom 50 buy, 100 v1 users of
/// whom 10 buy, each purchase 30 minutes after the impression, inside the one-hour window. By hand (the
/// arithmetic is in ReportRunExperimentColumnsTests): difference −0.4; always-valid interval [−0.697376,
/// −0.102624] and p-value 0.00395926; pooled z −6.17213 with a fixed-horizon p-value of 6.7e−10. So v1 is
/// significantly worse than control under both rules.
@Suite struct ExperimentSignificanceEndToEndTests {
    private static let noon: Date = {
        let startOfToday = floor(Date.now.timeIntervalSince1970 / 86_400) * 86_400
        return Date(timeIntervalSince1970: startOfToday - 86_400 + 12 * 3600)
    }()

    private static var yesterday: String { String(EpochMilliseconds.rfc3339(noon).prefix(10)) }

    private static func event(_ type: String, user: String, minutes: Double, extra: String) -> TestEvent {
        let id = UUID()
        let time = EpochMilliseconds.rfc3339(noon.addingTimeInterval(minutes * 60))
        let channel = type == "conversion" ? "" : #","channel":"content_card","campaign_id":"spring""#
        return TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"\(type)","time":"\(time)","user_id":"\(user)"\(channel)\(extra)}
            """)
    }

    private static func events() -> [TestEvent] {
        var events: [TestEvent] = []
        for index in 0..<100 {
            events.append(event("impression", user: "c\(index)", minutes: 0, extra: #","control":true"#))
            events.append(event("impression", user: "v\(index)", minutes: 0, extra: #","variant_id":"v1""#))
            if index < 50 {
                events.append(event("conversion", user: "c\(index)", minutes: 30, extra: #","name":"purchase""#))
            }
            if index < 10 {
                events.append(event("conversion", user: "v\(index)", minutes: 30, extra: #","name":"purchase""#))
            }
        }
        return events
    }

    /// A fixture with the campaign's events posted through the daemon, and `spring` set to count purchases
    /// within an hour and to judge by the fixed-horizon numbers.
    private func load() throws -> IngestFixture {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let events = Self.events()
        #expect(try fixture.client(of: daemon).ingest(events).counts == .accepted(events.count))
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring", "--conversion", "purchase",
            "--window", "1h", "--significance", "fixed", "--database-url", fixture.database.url,
        ])
        return fixture
    }

    /// `cardinal report control` of `spring` over yesterday as JSON, with `options`.
    private func control(_ fixture: IngestFixture, _ options: [String]) throws -> CommandResult {
        try CardinalCLI.run(
            ["report", "control", "--app", IngestFixture.appName, "--campaign", "spring", "--from", Self.yesterday,
             "--to", Self.yesterday, "--format", "json", "--database-url", fixture.database.url] + options
        )
    }

    /// The first comparison of the report's JSON output.
    private func comparison(_ result: CommandResult) throws -> [String: Any] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let campaign = try #require((json["campaigns"] as? [[String: Any]])?.first)
        return try #require((campaign["comparisons"] as? [[String: Any]])?.first)
    }

    @Test("report control judges by the rule campaigns set stored, --significance overrides it, and --fail-on warning exits 3 on a worse variant")
    func campaignRuleAndFailOn() throws {
        let fixture = try load()
        let url = fixture.database.url
        let listed = try CardinalCLI.succeed(["campaigns", "list", "--format", "csv", "--database-url", url])
        #expect(listed.split(separator: "\n").first?.hasSuffix(",significance,cuped_window") == true, "\(listed)")
        #expect(listed.split(separator: "\n").last?.hasSuffix(",fixed,14d") == true, "\(listed)")

        let byCampaign = try comparison(try control(fixture, []))
        #expect(byCampaign["significance"] as? String == "fixed")
        #expect(byCampaign["significance_source"] as? String == "campaign")
        #expect(byCampaign["significant"] as? Bool == true)
        let byOption = try comparison(try control(fixture, ["--significance", "sequential"]))
        #expect(byOption["significance"] as? String == "sequential")
        #expect(byOption["significance_source"] as? String == "option")
        #expect(byOption["significant"] as? Bool == true)
        let alwaysValid = try #require(byOption["always_valid"] as? [String: Any])
        #expect(abs((alwaysValid["p_value"] as? Double ?? -1) - 0.00395926) < 1e-6)

        // The worse variant is a warning: --fail-on warning exits 3 after printing the report in full,
        // --fail-on critical does not trip on it.
        let warning = try control(fixture, ["--fail-on", "warning"])
        #expect(warning.exitStatus == 3, "\(warning.standardError)")
        #expect(try comparison(warning)["significant"] as? Bool == true)
        #expect(try control(fixture, ["--fail-on", "critical"]).exitStatus == 0)

        // The page draws the lift of yesterday's matured users under the verdict: v1 10 % against control's
        // 50 %, a relative lift of 0.1 / 0.5 − 1 = −80 %.
        let page = try CardinalCLI.succeed(
            ["report", "control", "--app", IngestFixture.appName, "--campaign", "spring", "--from", Self.yesterday,
             "--to", Self.yesterday, "--format", "html", "--database-url", url]
        )
        #expect(page.contains("<h3>Cumulative lift against control</h3>"))
        #expect(page.contains("<tr><td>\(Self.yesterday)</td><td class=\"number\">-80%</td>"), "\(page)")

        // Back to the default rule, sequential, which the campaign list shows.
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring", "--clear-significance",
            "--database-url", url,
        ])
        let byDefault = try comparison(try control(fixture, []))
        #expect(byDefault["significance"] as? String == "sequential")
        #expect(byDefault["significance_source"] as? String == "default")
    }

    @Test("report run --fail-on warning exits 3 on a worse variant and stores the rule, the verdict and the always-valid numbers")
    func storedRun() throws {
        let fixture = try load()
        let run = try CardinalCLI.run(["report", "run", "--fail-on", "warning", "--database-url", fixture.database.url])
        #expect(run.exitStatus == 3, "\(run.standardError)")

        let connection = try fixture.database.connect()
        let rows = try connection.query(
            """
            select significance, significance_source, significant, always_valid_p_value,
                   always_valid_difference_ci95_lower, always_valid_difference_ci95_upper
            from cardinal.latest_control where not control
            """
        )
        let variant = try #require(rows.first)
        #expect(try variant.decode(String?.self, column: "significance") == "fixed")
        #expect(try variant.decode(String?.self, column: "significance_source") == "campaign")
        #expect(try variant.decode(Bool?.self, column: "significant") == true)
        let pValue = try #require(try variant.decode(Double?.self, column: "always_valid_p_value"))
        #expect(abs(pValue - 0.00395926) < 1e-6)
        let lower = try #require(try variant.decode(Double?.self, column: "always_valid_difference_ci95_lower"))
        let upper = try #require(try variant.decode(Double?.self, column: "always_valid_difference_ci95_upper"))
        #expect(abs(lower - -0.697376) < 1e-6 && abs(upper - -0.102624) < 1e-6)
        // The campaign's rule is fixed, so the finding's evidence is the fixed-horizon numbers.
        let finding = try connection.query(
            """
            select severity, evidence ->> 'always_valid' as always_valid from cardinal.latest_anomalies
            where kind = 'variant_worse_than_control'
            """
        )
        #expect(try finding.first?.decode(String.self, column: "severity") == "warning")
        #expect(try finding.first?.decode(String.self, column: "always_valid") == "0")
    }
}
