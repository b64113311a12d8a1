import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import PostgresClient
import Testing

/// What a stored run keeps of the control report's always-valid numbers, significance rule and power figures
/// (migration 0090), and the variant_worse_than_control finding it stores beside them.
///
/// One clearly harmful variant: 100 control users of whom 50 buy, 100 v1 users of whom 10 buy, within the
/// default 3-day window. Worked by hand with the formulas of docs/experiment-statistics.md, N = 200, α = 0.05:
/// - ρ² = (−2 ln 0.05 + ln(1 − 2 ln 0.05))/5000 = (5.991465 + 1.944702)/5000 = 0.00158723, Nρ² = 0.317446;
/// - difference −0.4, V = 0.1·0.9/100 + 0.5·0.5/100 = 0.0034, and the factor
///   √(2·1.317446·ln(√1.317446/0.05)/0.317446) = 5.09996, so the interval is −0.4 ± √0.0034·5.09996 =
///   −0.4 ± 0.297376 = [−0.697376, −0.102624];
/// - lift −0.8, V = 0.09/(0.25·100) + 0.25·0.01/(0.0625·100) = 0.004, interval −0.8 ± 0.0632456·5.09996 =
///   [−1.122550, −0.477450];
/// - N d²/V = 200·0.16/0.0034 = 9411.765, e = exp(0.00158723·9411.765/(2·1.317446))/√1.317446 =
///   exp(5.669552)/1.147801 = 252.5726, p = 0.00395926 (one variant: Holm leaves it);
/// - MDE = (1.959964 + 0.841621)·√(0.25·(1/100 + 1/100)) = 2.801585·0.0707107 = 0.198102, a lift of 0.396204;
/// - pooled z = −0.4/√(0.3·0.7·0.02) = −6.17213, two-sided p = 6.7e−10.
@Suite struct ReportRunExperimentColumnsTests {
    private func seed(_ scenario: ReportScenario, significance: SignificanceRule?) throws {
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), significance: significance.map { .set($0) } ?? .keep
        ))
        var events: [Event] = []
        for index in 0..<100 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                control: true))
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
            if index < 50 {
                events.append(conversion("purchase", at: scenario.time(10, "02:00"), user: "c\(index)"))
            }
            if index < 10 {
                events.append(conversion("purchase", at: scenario.time(10, "02:00"), user: "v\(index)"))
            }
        }
        try scenario.write(events)
    }

    private func run(_ scenario: ReportScenario) throws -> ScheduledReportRun {
        try ScheduledReportRun.perform(session: scenario.session, scope: scenario.scope(10, 11), asOf: scenario.time(20, "00:00"))
    }

    @Test("A stored run keeps the always-valid intervals and p-value, the campaign's rule with its verdict, and the MDE")
    func storedColumns() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try seed(scenario, significance: .fixed)
        _ = try run(scenario)
        let rows = try scenario.connection.query(
            """
            select control, always_valid_difference_ci95_lower, always_valid_difference_ci95_upper,
                   always_valid_lift_ci95_lower, always_valid_lift_ci95_upper, always_valid_p_value,
                   always_valid_p_value_holm, significance, significance_source, significant, mde, mde_lift
            from cardinal.latest_control order by position
            """
        )
        #expect(rows.count == 2)
        let control = try #require(rows.first)
        // The rule is the campaign's, on each of its rows; the comparison columns stay empty on control's.
        #expect(try control.decode(Bool.self, column: "control"))
        #expect(try control.decode(String?.self, column: "significance") == "fixed")
        #expect(try control.decode(String?.self, column: "significance_source") == "campaign")
        #expect(try control.decode(Bool?.self, column: "significant") == nil)
        #expect(try control.decode(Double?.self, column: "always_valid_p_value") == nil)
        #expect(try control.decode(Double?.self, column: "mde") == nil)
        let variant = try #require(rows.last)
        let expected: [(String, Double)] = [
            ("always_valid_difference_ci95_lower", -0.697376), ("always_valid_difference_ci95_upper", -0.102624),
            ("always_valid_lift_ci95_lower", -1.122550), ("always_valid_lift_ci95_upper", -0.477450),
            ("always_valid_p_value", 0.00395926), ("always_valid_p_value_holm", 0.00395926),
            ("mde", 0.198102), ("mde_lift", 0.396204),
        ]
        for (column, value) in expected {
            let stored = try #require(try variant.decode(Double?.self, column: column), "\(column) is NULL")
            #expect(abs(stored - value) < 1e-6, "\(column) is \(stored), not \(value)")
        }
        #expect(try variant.decode(String?.self, column: "significance") == "fixed")
        #expect(try variant.decode(Bool?.self, column: "significant") == true)
    }

    @Test("A variant significantly below control is a stored variant_worse_than_control warning with the rule's numbers")
    func worseVariantFinding() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try seed(scenario, significance: nil)
        let stored = try run(scenario)
        // No split and no sends: the sample ratio check is skipped; control impressions exist: nothing else.
        #expect(stored.anomalies.findings.map(\.kind) == [.variantWorseThanControl])
        let rows = try scenario.connection.query(
            "select kind, severity, campaign_id, evidence::text, likely_cause from cardinal.latest_anomalies"
        )
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(try row.decode(String.self, column: "kind") == "variant_worse_than_control")
        #expect(try row.decode(String.self, column: "severity") == "warning")
        #expect(try row.decode(String?.self, column: "campaign_id") == "c1")
        #expect(try row.decode(String.self, column: "likely_cause").hasPrefix("Variant v1 converts to purchase less"))
        // The campaign sets no rule: the default, sequential, so the evidence is the always-valid numbers.
        let evidence = try AnomalyEvidence(jsonText: try row.decode(String.self, column: "evidence"))
        let expected: [(String, Double)] = [
            ("always_valid", 1), ("difference", -0.4), ("difference_ci95_lower", -0.697376),
            ("difference_ci95_upper", -0.102624), ("relative_lift", -0.8), ("relative_lift_ci95_lower", -1.122550),
            ("relative_lift_ci95_upper", -0.477450), ("p_value_holm", 0.00395926), ("users.control", 100),
            ("converters.control", 50), ("users.v1", 100), ("converters.v1", 10),
        ]
        #expect(evidence.items.map(\.name).sorted() == expected.map(\.0).sorted())
        for (name, value) in expected {
            let found = try #require(evidence[name], "no \(name)")
            #expect(abs(found - value) < 1e-6, "\(name) is \(found), not \(value)")
        }
    }
}
