import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import Testing

/// The always-valid, significance and power numbers in the control report's JSON and CSV, on the example worked
/// by hand in AlwaysValidComparisonTests and ExperimentPowerTests: control 500 and v1 600 converters of 10,000
/// matured users, 12,000 exposed each over a 20-day range read after its end, a 3-day window.
@Suite struct ControlReportExperimentColumnsTests {
    private func report(significance: SignificanceRule, targetLift: Double?) -> ControlReport {
        let rows = [(nil as String?, true, 500), ("v1", false, 600)].map { variant, control, converters in
            ControlArmRow(app: "shop", campaignID: "c1", conversionEvent: "purchase", window: .standard,
                          variantID: variant, control: control, users: 10000, converters: converters,
                          exposedUsers: 12000, usersInSeveralArms: 0)
        }
        let asOf = Date(timeIntervalSince1970: 25 * 86_400)
        return ControlReport(
            scope: ReportScope(from: ReportDate(daysSinceEpoch: 0), to: ReportDate(daysSinceEpoch: 19)), asOf: asOf,
            allCampaigns: ControlReport.build(rows: rows, splits: [:], asOf: asOf), significance: significance,
            targetLift: targetLift
        )
    }

    private func comparison(_ report: ControlReport) throws -> [String: JSONValue] {
        guard case .object(let document) = report.json,
              case .array(let campaigns)? = document["campaigns"],
              case .object(let campaign)? = campaigns.first,
              case .array(let comparisons)? = campaign["comparisons"],
              case .object(let members)? = comparisons.first
        else {
            Issue.record("no comparison in \(report.json.compactText)")
            return [:]
        }
        return Dictionary(members.members.map { ($0.key, $0.value) }) { first, _ in first }
    }

    private func number(_ value: JSONValue?) -> Double? {
        guard case .number(let text)? = value else { return nil }
        return Double(text)
    }

    private func members(_ value: JSONValue?) -> [String: JSONValue] {
        guard case .object(let object)? = value else { return [:] }
        return Dictionary(object.members.map { ($0.key, $0.value) }) { first, _ in first }
    }

    @Test("JSON carries the always-valid interval and p-value beside the fixed-horizon ones")
    func alwaysValidInJSON() throws {
        let alwaysValid = members(try comparison(report(significance: .sequential, targetLift: nil))["always_valid"])
        guard case .array(let bounds)? = alwaysValid["difference_ci95"] else {
            Issue.record("no always-valid interval: \(alwaysValid)")
            return
        }
        expectClose(number(bounds.first), -0.0000797905, tolerance: 1e-9, "lower")
        expectClose(number(bounds.last), 0.0200797905, tolerance: 1e-9, "upper")
        expectClose(number(alwaysValid["p_value"]), 0.0538805876, tolerance: 1e-9, "always-valid p")
    }

    @Test("The significance rule decides `significant`: true at a fixed horizon, false always-valid")
    func significanceRule() throws {
        #expect(try comparison(report(significance: .fixed, targetLift: nil))["significant"] == .bool(true))
        let sequential = try comparison(report(significance: .sequential, targetLift: nil))
        #expect(sequential["significant"] == .bool(false))
        #expect(sequential["significance"] == .string("sequential"))
    }

    @Test("JSON carries the detectable effect and, with a target lift, the days still needed")
    func powerInJSON() throws {
        let withoutTarget = members(try comparison(report(significance: .sequential, targetLift: nil))["power"])
        expectClose(number(withoutTarget["minimum_detectable_difference"]), 0.0086350656, tolerance: 1e-9, "MDE")
        #expect(withoutTarget["days_to_target"] == .null)
        let power = members(try comparison(report(significance: .sequential, targetLift: 0.1))["power"])
        expectClose(number(power["target_lift"]), 0.1, tolerance: 0, "target")
        expectClose(number(power["days_to_target"]), 32.7095716505, tolerance: 1e-6, "days")
    }

    @Test("CSV has the new columns, empty on the control row and filled on the variant's")
    func csvColumns() throws {
        let lines = report(significance: .sequential, targetLift: 0.1).render(.csv).split(separator: "\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        let control = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        let variant = lines[2].split(separator: ",", omittingEmptySubsequences: false)
        let columns = ["always_valid_difference_ci95_lower", "always_valid_difference_ci95_upper",
                       "always_valid_lift_ci95_lower", "always_valid_lift_ci95_upper", "always_valid_p_value",
                       "always_valid_p_value_holm", "significant", "mde", "mde_lift", "days_to_target_lift"]
        for column in columns {
            let index = try #require(header.firstIndex(of: Substring(column)), "no column \(column)")
            #expect(control[index].isEmpty, "control's \(column)")
            #expect(!variant[index].isEmpty, "v1's \(column)")
        }
        let significant = try #require(header.firstIndex(of: "significant"))
        #expect(variant[significant] == "false")
    }
}
