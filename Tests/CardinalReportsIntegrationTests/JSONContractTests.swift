import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import Testing

/// The JSON output is the contract scripts use (issue 4): these tests read it back from reports computed on a
/// database and check every field name, in order, and that numbers are numbers.
@Suite struct JSONContractTests {
    private func object(_ value: JSONValue?) throws -> JSONObject {
        guard case .object(let object) = value else {
            throw ContractFailure(description: "expected an object, got \(value?.compactText ?? "nothing")")
        }
        return object
    }

    private func array(_ value: JSONValue?) throws -> [JSONValue] {
        guard case .array(let array) = value else {
            throw ContractFailure(description: "expected an array, got \(value?.compactText ?? "nothing")")
        }
        return array
    }

    private struct ContractFailure: Error, CustomStringConvertible {
        var description: String
    }

    @Test("unique-impressions JSON has the contract's fields, numbers as numbers and null rates")
    func uniqueImpressions() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.click, at: scenario.time(10, "01:01"), user: "u1"),
            event(.send, .push, at: scenario.time(10, "01:00"), user: "u1", campaign: "p1", variant: nil),
        ])
        let report = try UniqueImpressionsReport.run(session: scenario.session, scope: scenario.scope(10, 10))
        let document = try object(JSONValue.parse(report.render(.json)))
        // 0030 extended the contract by one member at the end; no campaign here has conversion events.
        #expect(document.members.map(\.key) == ["report", "from", "to", "rows", "conversions"])
        #expect(document["conversions"] == .array([]))
        #expect(document["report"] == .string("unique-impressions"))
        #expect(document["from"] == .string(scenario.day(10).description))
        let rows = try array(document["rows"])
        #expect(rows.count == 2)
        let card = try object(rows.first)
        #expect(card.members.map(\.key) == [
            "app", "campaign_id", "canvas_step_id", "variant_id", "channel", "impressions", "unique_impressions",
            "unique_daily_impressions", "unique_recipients", "clicks", "unique_clicks", "dismissals",
            "unique_dismissals", "click_rate", "unique_click_rate", "dismissal_rate", "unique_dismissal_rate",
            // The push columns (0029, deliveries 0101): new members at the end, null on other channels.
            "direct_opens", "unique_direct_opens", "influenced_opens", "total_opens", "direct_open_rate",
            "total_open_rate", "deliveries", "delivery_rate",
        ])
        #expect(card["direct_opens"] == .null)
        #expect(card["deliveries"] == .null)
        #expect(card["total_open_rate"] == .null)
        #expect(card["app"] == .string("shop"))
        #expect(card["canvas_step_id"] == .null)
        #expect(card["impressions"] == .number("1"))
        #expect(card["click_rate"] == .number("1"))
        #expect(card["dismissal_rate"] == .number("0"))
        let push = try object(rows.last)
        #expect(push["unique_recipients"] == .number("1"))
        #expect(push["click_rate"] == .null)
        #expect(push["direct_opens"] == .number("0"))
        #expect(push["influenced_opens"] == .number("0"))
        #expect(push["direct_open_rate"] == .number("0"))
        #expect(push["deliveries"] == .number("0"))
        #expect(push["delivery_rate"] == .number("0"))
    }

    @Test("anomalies JSON has the contract's fields and an evidence object of numbers")
    func anomalies() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([event(.dismissal, at: scenario.time(10, "01:00"), user: "u1")])
        let report = try AnomaliesReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(20, "00:00")
        )
        let document = try object(JSONValue.parse(report.render(.json)))
        #expect(document.members.map(\.key) == ["report", "findings"])
        let findings = try array(document["findings"])
        #expect(!findings.isEmpty)
        for value in findings {
            let finding = try object(value)
            #expect(finding.members.map(\.key) == [
                "kind", "severity", "app", "campaign_id", "canvas_id", "canvas_step_id", "channel", "platform",
                "sdk_version", "app_version", "evidence", "likely_cause",
            ])
            let evidence = try object(finding["evidence"])
            #expect(!evidence.members.isEmpty)
            #expect(evidence.members.allSatisfy { if case .number = $0.value { true } else { false } })
        }
    }

    @Test("control JSON has the contract's campaign, arm, comparison and srm fields")
    func control() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1")),
            furtherConversionEvents: .set(["signup"])
        ))
        var events: [Event] = []
        for index in 0..<10 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil, control: true))
        }
        events.append(event(.conversion, at: scenario.time(10, "02:00"), user: "v0", conversion: "purchase"))
        // A purchase before v1's exposure: a covariate that varies, so the comparison has its cuped object.
        events.append(event(.conversion, at: scenario.time(9, "12:00"), user: "v1", conversion: "purchase"))
        try scenario.write(events)
        let report = try ControlReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(20, "00:00"),
            cuped: true
        )
        let document = try object(JSONValue.parse(report.render(.json)))
        #expect(document.members.map(\.key) == ["report", "campaigns"])
        let campaign = try object(try array(document["campaigns"]).first)
        #expect(campaign.members.map(\.key) == [
            "app", "campaign_id", "conversion_event", "window_days", "as_of", "arms", "comparisons", "srm",
            "srm_split_source", "srm_expected_split", "srm_skipped", "canvas_id", "conversions", "cuped_window_days",
        ])
        #expect(campaign["cuped_window_days"] == .number("14"))
        #expect(campaign["canvas_id"] == .null)
        // signup, the further conversion event: its arms and comparisons have the primary's fields.
        let conversion = try object(try array(campaign["conversions"]).first)
        #expect(conversion.members.map(\.key) == ["ordinal", "conversion_event", "arms", "comparisons"])
        #expect(conversion["ordinal"] == .number("2"))
        #expect(conversion["conversion_event"] == .string("signup"))
        #expect(try array(conversion["arms"]).map { try object($0).members.map(\.key) } == Array(
            repeating: ["variant_id", "control", "users", "converters", "rate"], count: 2
        ))
        #expect(try object(try array(conversion["comparisons"]).first).members.map(\.key) == [
            "variant_id", "difference", "difference_ci95", "relative_lift", "relative_lift_ci95", "z", "p_value",
            "p_value_holm", "confidence", "chance_to_beat_control", "always_valid", "significance",
            "significance_source", "significant", "power", "cuped",
        ])
        // CUPED adjusts the primary conversion event only.
        #expect(try object(try array(conversion["comparisons"]).first)["cuped"] == .null)
        #expect(campaign["srm_split_source"] == .string("configured"))
        #expect(try object(campaign["srm_expected_split"]).members.map(\.key) == ["control", "v1"])
        #expect(campaign["srm_skipped"] == .null)
        #expect(campaign["window_days"] == .number("3"))
        #expect(campaign["as_of"] == .string(ISO8601DateFormatter().string(from: scenario.time(20, "00:00"))))
        let arms = try array(campaign["arms"])
        #expect(try arms.map { try object($0).members.map(\.key) } == Array(
            repeating: ["variant_id", "control", "users", "converters", "rate"], count: 2
        ))
        #expect(try object(arms.first)["rate"] == .number("0"))
        let comparison = try object(try array(campaign["comparisons"]).first)
        #expect(comparison.members.map(\.key) == [
            "variant_id", "difference", "difference_ci95", "relative_lift", "relative_lift_ci95", "z", "p_value",
            "p_value_holm", "confidence", "chance_to_beat_control", "always_valid", "significance",
            "significance_source", "significant", "power", "cuped",
        ])
        #expect(try object(comparison["cuped"]).members.map(\.key) == [
            "difference", "difference_ci95", "relative_lift", "relative_lift_ci95", "p_value", "theta",
            "variance_reduction",
        ])
        #expect(try object(comparison["always_valid"]).members.map(\.key) == [
            "difference_ci95", "relative_lift_ci95", "p_value", "p_value_holm",
        ])
        #expect(try object(comparison["power"]).members.map(\.key) == [
            "minimum_detectable_difference", "minimum_detectable_lift", "target_lift", "days_to_target",
        ])
        #expect(comparison["significance"] == .string("sequential"))
        #expect(comparison["significance_source"] == .string("default"))
        // Control converted nobody: the relative lift and its interval are undefined, the difference is not.
        #expect(comparison["relative_lift"] == .null)
        #expect(comparison["relative_lift_ci95"] == .null)
        #expect(try array(comparison["difference_ci95"]).count == 2)
        let srm = try object(campaign["srm"])
        #expect(srm.members.map(\.key) == ["chi2", "df", "p_value", "mismatch"])
        #expect(srm["mismatch"] == .bool(false))
    }
}
