public import CardinalCore
import CardinalStore
import Foundation

extension ControlReport {
    /// The report in `format`: JSON is the contract of issue 4 (`{"report":"control","campaigns":[…]}`), with
    /// `null` for every undefined statistic and for a skipped sample ratio check, whose reason is in
    /// `srm_skipped`; `srm_split_source` says where the expected split came from (`unknown` skips the check). Without a campaign to show
    /// the table and the page say so, naming the scope; CSV keeps its header and JSON its empty `campaigns`.
    /// A canvas report (`--canvas`) has `campaign_id` null and `canvas_id` set (its table's id column is
    /// `canvas_id`); a campaign's further conversion events are in `conversions`, and follow the primary's
    /// rows in the table and on the page. The HTML page draws each campaign's cumulative lift from `lifts`
    /// (``CumulativeLift/ofCampaigns(in:session:)``) when given; the other formats do not use it.
    public func render(_ format: OutputFormat, lifts: [CampaignKey: CumulativeLift]? = nil) -> String {
        let emptyLine = ReportText.nothing("campaigns with a conversion event or a control arm", for: scope)
        switch format {
        case .table where campaigns.isEmpty: return emptyLine + "\n"
        case .table: return table(exact: false).renderAligned()
        case .csv: return table(exact: true).renderCSV()
        case .json: return json.compactText + "\n"
        case .html:
            return HTMLPage(
                title: "Control groups",
                notes: [ReportText.scopeLine(scope), "Matured users as of \(ReportText.timestamp(asOf))."]
                    + (campaigns.isEmpty ? [emptyLine] : []),
                sections: campaigns.map { campaign in
                    HTMLPage.Section(heading: "\(campaign.isCanvas ? "Canvas" : "Campaign") \(campaign.campaignID) "
                                         + "(\(campaign.app))",
                                     body: ExperimentVerdict.html(campaign, rule: significance(of: campaign).rule)
                                         + liftHTML(of: campaign, lifts))
                } + (campaigns.isEmpty ? [] : [PageDefinitions.section])
            ).render()
        }
    }

    /// A campaign's cumulative lift chart under its own heading, when `lifts` were read; nothing for a canvas,
    /// whose days `control_arm_days` does not give.
    private func liftHTML(of campaign: ControlCampaign, _ lifts: [CampaignKey: CumulativeLift]?) -> String {
        guard let lifts, !campaign.isCanvas else {
            return ""
        }
        return "<h3>Cumulative lift against control</h3>\n"
            + CumulativeLiftChart.html(lifts[CampaignKey(app: campaign.app, campaignID: campaign.campaignID)])
    }

    /// The JSON document.
    public var json: JSONValue {
        ReportJSON.object([
            ("report", .string("control")),
            ("campaigns", .array(campaigns.map(campaignJSON))),
        ])
    }

    private func campaignJSON(_ campaign: ControlCampaign) -> JSONValue {
        let srm: JSONValue = campaign.sampleRatio.check.map { check in
            ReportJSON.object([
                ("chi2", ReportJSON.number(check.chi2)),
                ("df", ReportJSON.integer(check.degreesOfFreedom)),
                ("p_value", ReportJSON.number(check.pValue)),
                ("mismatch", .bool(check.mismatch)),
            ])
        } ?? .null
        return ReportJSON.object([
            ("app", .string(campaign.app)),
            ("campaign_id", campaign.isCanvas ? .null : .string(campaign.campaignID)),
            ("conversion_event", ReportJSON.string(campaign.conversionEvent)),
            ("window_days", ReportJSON.number(campaign.window.days)),
            ("as_of", .string(ReportText.timestamp(campaign.asOf))),
            ("arms", .array(campaign.arms.map(Self.armJSON))),
            ("comparisons", .array(comparisonsJSON(campaign.comparisons, arms: campaign.arms, of: campaign))),
            ("srm", srm),
            ("srm_split_source", .string(campaign.splitSource.rawValue)),
            ("srm_expected_split", campaign.expectedSplit.map { split in
                ReportJSON.object(split.arms.map { ($0.name, ReportJSON.number($0.weight)) })
            } ?? .null),
            ("srm_skipped", ReportJSON.string(campaign.sampleRatioSkipped)),
            ("canvas_id", campaign.isCanvas ? .string(campaign.campaignID) : .null),
            ("conversions", .array(campaign.furtherConversions.map { conversion in
                ReportJSON.object([
                    ("ordinal", ReportJSON.integer(conversion.ordinal)),
                    ("conversion_event", .string(conversion.conversionEvent)),
                    ("arms", .array(conversion.arms.map(Self.armJSON))),
                    ("comparisons", .array(comparisonsJSON(conversion.comparisons, arms: conversion.arms,
                                                           of: campaign))),
                ])
            })),
            ("cuped_window_days", ReportJSON.number(campaign.cupedWindow?.days)),
        ])
    }

    private static func armJSON(_ arm: ControlArm) -> JSONValue {
        ReportJSON.object([
            ("variant_id", ReportJSON.string(arm.variantID)),
            ("control", .bool(arm.control)),
            ("users", ReportJSON.integer(arm.users)),
            ("converters", ReportJSON.integer(arm.converters)),
            ("rate", ReportJSON.number(arm.rate)),
        ])
    }

    /// Each comparison with its always-valid numbers, the verdict of the campaign's significance rule (with
    /// where the rule came from) and the power figures of its variant among `arms`.
    private func comparisonsJSON(_ comparisons: [ControlComparison], arms: [ControlArm], of campaign: ControlCampaign)
        -> [JSONValue]
    {
        let control = arms.first(where: \.control)
        let choice = significance(of: campaign)
        return comparisons.map { comparison -> JSONValue in
            let statistics = comparison.statistics
            let arm = arms.first { !$0.control && $0.variantID == comparison.variantID }
            let figures: ExperimentPower? = arm.flatMap { self.power(of: $0, against: control, window: campaign.window) }
            let significant: JSONValue = choice.rule.isSignificant(statistics).map { .bool($0) } ?? .null
            return ReportJSON.object([
                ("variant_id", ReportJSON.string(comparison.variantID)),
                ("difference", ReportJSON.number(statistics.difference)),
                ("difference_ci95", Self.intervalJSON(statistics.differenceCI95)),
                ("relative_lift", ReportJSON.number(statistics.relativeLift)),
                ("relative_lift_ci95", Self.intervalJSON(statistics.relativeLiftCI95)),
                ("z", ReportJSON.number(statistics.z)),
                ("p_value", ReportJSON.number(statistics.pValue)),
                ("p_value_holm", ReportJSON.number(statistics.pValueHolm)),
                ("confidence", ReportJSON.number(statistics.confidence)),
                ("chance_to_beat_control", ReportJSON.number(statistics.chanceToBeatControl)),
                ("always_valid", ReportJSON.object([
                    ("difference_ci95", Self.intervalJSON(statistics.alwaysValid.differenceInterval)),
                    ("relative_lift_ci95", Self.intervalJSON(statistics.alwaysValid.relativeLiftInterval)),
                    ("p_value", ReportJSON.number(statistics.alwaysValid.pValue)),
                    ("p_value_holm", ReportJSON.number(statistics.alwaysValid.pValueHolm)),
                ])),
                ("significance", .string(choice.rule.rawValue)),
                ("significance_source", .string(choice.source.rawValue)),
                ("significant", significant),
                ("power", ReportJSON.object([
                    ("minimum_detectable_difference", ReportJSON.number(figures?.minimumDetectableDifference)),
                    ("minimum_detectable_lift", ReportJSON.number(figures?.minimumDetectableLift)),
                    ("target_lift", ReportJSON.number(targetLift)),
                    ("days_to_target", ReportJSON.number(figures?.daysToTarget)),
                ])),
                ("cuped", Self.cupedJSON(comparison.cuped)),
            ])
        }
    }

    /// `[lower, upper]`, or `null`.
    static func intervalJSON(_ interval: Interval?) -> JSONValue {
        interval.map { .array([ReportJSON.number($0.lower), ReportJSON.number($0.upper)]) } ?? .null
    }

    /// One row per arm with its comparison (variants) and the campaign's sample ratio check, for the primary
    /// conversion event and then for each further one.
    func table(exact: Bool) -> TextTable {
        let style = CellStyle(exact: exact)
        var header = ["app", scope.canvas == nil ? "campaign_id" : "canvas_id", "conversion_event", "window", "arm",
                      "users", "converters", "rate", "difference"]
        header += style.intervalHeader("difference_ci95")
        header.append("relative_lift")
        header += style.intervalHeader("relative_lift_ci95")
        header += ["z", "p_value", "p_value_holm", "confidence", "chance_to_beat_control", "srm_p_value", "srm_mismatch",
                   "srm_split"]
        header += style.intervalHeader("always_valid_difference_ci95")
        header += style.intervalHeader("always_valid_lift_ci95")
        header += ["always_valid_p_value", "always_valid_p_value_holm", "significance", "significance_source",
                   "significant", "mde", "mde_lift", "days_to_target_lift"]
        header += Self.cupedHeader(style)
        var rows: [[String?]] = []
        for campaign in campaigns {
            for arm in campaign.arms {
                rows.append(cells(arm: arm, event: campaign.conversionEvent, comparisons: campaign.comparisons,
                                  arms: campaign.arms, of: campaign, style: style))
            }
            for conversion in campaign.furtherConversions {
                for arm in conversion.arms {
                    rows.append(cells(arm: arm, event: conversion.conversionEvent,
                                      comparisons: conversion.comparisons, arms: conversion.arms, of: campaign,
                                      style: style))
                }
            }
        }
        return TextTable(header: header, rows: rows)
    }

    private func cells(
        arm: ControlArm, event: String?, comparisons: [ControlComparison], arms: [ControlArm],
        of campaign: ControlCampaign, style: CellStyle
    ) -> [String?] {
        let statistics: VariantComparison? = arm.control
            ? nil : comparisons.first { $0.variantID == arm.variantID }?.statistics
        let check = campaign.sampleRatio.check
        var cells: [String?] = [campaign.app, campaign.campaignID, event,
                                campaign.window.description, arm.splitName, String(arm.users)]
        cells.append(arm.converters.map { String($0) })
        cells.append(style.rate(arm.rate))
        cells.append(style.rate(statistics?.difference))
        cells += style.interval(statistics?.differenceCI95)
        cells.append(style.rate(statistics?.relativeLift))
        cells += style.interval(statistics?.relativeLiftCI95)
        cells.append(style.statistic(statistics?.z))
        cells.append(style.statistic(statistics?.pValue))
        cells.append(style.statistic(statistics?.pValueHolm))
        cells.append(style.rate(statistics?.confidence))
        cells.append(style.rate(statistics?.chanceToBeatControl))
        cells.append(style.statistic(check?.pValue))
        cells.append(check.map { $0.mismatch ? "true" : "false" })
        cells.append(campaign.splitSource.rawValue)
        cells += style.interval(statistics?.alwaysValid.differenceInterval)
        cells += style.interval(statistics?.alwaysValid.relativeLiftInterval)
        cells.append(style.statistic(statistics?.alwaysValid.pValue))
        cells.append(style.statistic(statistics?.alwaysValid.pValueHolm))
        let choice = significance(of: campaign)
        cells += [choice.rule.rawValue, choice.source.rawValue]
        cells.append(statistics.flatMap(choice.rule.isSignificant).map { $0 ? "true" : "false" })
        let figures = power(of: arm, against: arms.first(where: \.control), window: campaign.window)
        cells.append(style.rate(figures?.minimumDetectableDifference))
        cells.append(style.rate(figures?.minimumDetectableLift))
        cells.append(style.statistic(figures?.daysToTarget))
        cells += Self.cupedCells(arm.control ? nil : comparisons.first { $0.variantID == arm.variantID }?.cuped, style)
        return cells
    }
}
