import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import Testing

/// Which rule judges each campaign, and the `variant_worse_than_control` finding, on the example worked by hand
/// in AlwaysValidComparisonTests: 500 and 600 converters of 10,000 matured users per arm, a difference of 0.01
/// with a fixed-horizon (pooled z = 3.101614) p-value of 2·(1 − Φ(3.101614)) = 0.00192469 and an always-valid
/// p-value of 0.0538806. The fixed rule calls it significant, the sequential rule not yet.
@Suite struct ControlReportSignificanceTests {
    /// Campaigns `c1`, `c2`, … with `control` and `variant` converters of 10,000 users each, `c1` set to
    /// `setting` (when given).
    private func report(
        control: Int, variant: Int, campaigns: Int = 1, setting: SignificanceRule?, option: SignificanceRule?
    ) -> ControlReport {
        let rows = (1...campaigns).flatMap { number in
            [(nil as String?, true, control), ("v1", false, variant)].map { variantID, isControl, converters in
                ControlArmRow(app: "shop", campaignID: "c\(number)", conversionEvent: "purchase", window: .standard,
                              variantID: variantID, control: isControl, users: 10000, converters: converters,
                              exposedUsers: 10000, usersInSeveralArms: 0)
            }
        }
        let settings = setting.map { [ControlReport.CampaignKey(app: "shop", campaignID: "c1"): $0] } ?? [:]
        let asOf = Date(timeIntervalSince1970: 25 * 86_400)
        return ControlReport(
            scope: ReportScope(from: ReportDate(daysSinceEpoch: 0), to: ReportDate(daysSinceEpoch: 19)), asOf: asOf,
            allCampaigns: ControlReport.build(rows: rows, splits: [:], significance: settings, asOf: asOf),
            significance: option
        )
    }

    /// Each campaign's first comparison in the JSON, by campaign id.
    private func comparisons(_ report: ControlReport) -> [String: [String: JSONValue]] {
        guard case .object(let document) = report.json, case .array(let campaigns)? = document["campaigns"] else {
            return [:]
        }
        var result: [String: [String: JSONValue]] = [:]
        for case .object(let campaign) in campaigns {
            guard case .string(let id)? = campaign["campaign_id"], case .array(let list)? = campaign["comparisons"],
                  case .object(let first)? = list.first
            else { continue }
            result[id] = Dictionary(first.members.map { ($0.key, $0.value) }) { first, _ in first }
        }
        return result
    }

    @Test("Without --significance a campaign is judged by its own setting, else by the default, sequential")
    func campaignSetting() {
        let judged = comparisons(report(control: 500, variant: 600, campaigns: 2, setting: .fixed, option: nil))
        #expect(judged["c1"]?["significance"] == .string("fixed"))
        #expect(judged["c1"]?["significance_source"] == .string("campaign"))
        #expect(judged["c1"]?["significant"] == .bool(true))
        #expect(judged["c2"]?["significance"] == .string("sequential"))
        #expect(judged["c2"]?["significance_source"] == .string("default"))
        #expect(judged["c2"]?["significant"] == .bool(false))
    }

    @Test("The HTML arms table shows the always-valid lift and p-value beside the fixed ones, and each campaign's rule decides 'significant'")
    func htmlArmsTable() throws {
        let html = report(control: 500, variant: 600, campaigns: 2, setting: .fixed, option: nil).render(.html)
        let sections = html.components(separatedBy: "<h2>")
        let first = try #require(sections.first { $0.hasPrefix("Campaign c1 ") })
        let second = try #require(sections.first { $0.hasPrefix("Campaign c2 ") })
        for section in [first, second] {
            #expect(section.contains("<th>always-valid lift [95 %]</th>"))
            // The always-valid Holm p-value of the example, 0.0538806, beside the fixed one, 0.00192469 (4 digits).
            #expect(section.contains(">0.05388</td><td class=\"number\">"), "\(section)")
            #expect(section.contains(">0.001925</td><td class=\"number\">0.05388<"), "\(section)")
        }
        #expect(first.contains("<th>significant (fixed)</th>"))
        #expect(first.contains("<td class=\"number\">yes</td>"))
        #expect(second.contains("<th>significant (sequential)</th>"))
        #expect(second.contains("<td class=\"number\">no</td>"))
    }

    @Test("The forest plot draws Katz's fixed-horizon interval as the whisker over the always-valid interval as a shaded bar")
    func forestPlotBands() throws {
        let html = report(control: 500, variant: 600, setting: nil, option: nil).render(.html)
        let plot = try #require(html.components(separatedBy: "<svg class=\"chart forest-plot\"").dropFirst().first)
        // 600 against 500 of 10,000: lift 0.2, Katz [0.069212, 0.346786], always-valid [−0.020943, 0.420943]
        // (worked by hand in CumulativeLiftTests).
        #expect(plot.contains("<title>v1: 20% [6.92%, 34.68%], always-valid [-2.09%, 42.09%]</title>"), "\(plot)")
        #expect(plot.components(separatedBy: "<rect class=\"band\"").count - 1 == 1)
        #expect(plot.components(separatedBy: "<line class=\"whisker\"").count - 1 == 1)
    }

    @Test("--significance overrides every campaign's setting, and the output says it came from the option")
    func optionOverrides() throws {
        let judged = comparisons(report(control: 500, variant: 600, campaigns: 2, setting: .fixed, option: .sequential))
        for campaign in ["c1", "c2"] {
            #expect(judged[campaign]?["significance"] == .string("sequential"))
            #expect(judged[campaign]?["significance_source"] == .string("option"))
            #expect(judged[campaign]?["significant"] == .bool(false))
        }
        let csv = report(control: 500, variant: 600, setting: .fixed, option: .sequential).render(.csv)
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let rule = try #require(csv[0].firstIndex(of: Substring("significance")))
        let source = try #require(csv[0].firstIndex(of: Substring("significance_source")))
        // Campaign-wide, like the sample ratio columns: on the control row and the variant's.
        for row in csv.dropFirst() {
            #expect(row[rule] == "sequential")
            #expect(row[source] == "option")
        }
    }

    @Test("A variant significantly below control under its campaign's rule is a warning with that rule's numbers")
    func worseVariant() throws {
        // Control 600, v1 500: the example mirrored, a difference of −0.01, significant at a fixed horizon only.
        let fixed = report(control: 600, variant: 500, setting: .fixed, option: nil)
        let finding = try #require(fixed.findings.first)
        #expect(fixed.findings.count == 1)
        #expect(finding.kind == .variantWorseThanControl)
        #expect(finding.severity == .warning)
        #expect(finding.campaignID == "c1")
        #expect(finding.likelyCause.hasPrefix("Variant v1 converts to purchase less than control"))
        #expect(finding.evidence["always_valid"] == 0)
        expectClose(finding.evidence["difference"], -0.01, tolerance: 1e-12, "difference")
        // One variant: Holm leaves the p-value as it is.
        expectClose(finding.evidence["p_value_holm"], 0.00192469, tolerance: 1e-8, "fixed p")
        #expect(finding.evidence["users.control"] == 10000)
        #expect(finding.evidence["converters.control"] == 600)
        #expect(finding.evidence["users.v1"] == 10000)
        #expect(finding.evidence["converters.v1"] == 500)
        #expect(FailThreshold.warning.isTripped(by: fixed.findings))
        #expect(!FailThreshold.critical.isTripped(by: fixed.findings))
        // Not significant under the default, sequential (p = 0.0538806): no finding, nothing trips.
        #expect(report(control: 600, variant: 500, setting: nil, option: nil).findings.isEmpty)
        // --significance sequential overrides the campaign's fixed rule the same way.
        #expect(report(control: 600, variant: 500, setting: .fixed, option: .sequential).findings.isEmpty)
    }

    @Test("A variant significantly above control raises nothing")
    func betterVariant() {
        #expect(report(control: 500, variant: 600, setting: .fixed, option: nil).findings.isEmpty)
    }
}
