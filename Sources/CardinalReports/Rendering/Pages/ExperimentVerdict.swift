import CardinalStore

/// The experiment part of a campaign page in words and numbers: the sample ratio verdict as a sentence and
/// one table row per arm with the columns of the control report, for the primary conversion event and then
/// for each further one.
enum ExperimentVerdict {
    /// The forest plot of each variant's lift (Katz's fixed-horizon interval as a whisker over the always-valid
    /// interval as a shaded bar), the comparison table and the sample ratio verdict; `rule` decides
    /// the table's `significant` column, as it does the control report's.
    static func html(_ experiment: ControlCampaign?, rule: SignificanceRule) -> String {
        guard let experiment else {
            return "<p>Not an experiment: no conversion event is set and no control arm was seen.</p>\n"
        }
        var html = "<p class=\"verdict\">\(HTMLPage.escape(sampleRatio(experiment)))</p>\n"
        guard experiment.conversionEvent != nil else {
            return html + "<p>No conversion event is set, so variants are not compared with control "
                + "(<code>cardinal campaigns set --conversion NAME</code>).</p>\n"
        }
        let rows = experiment.comparisons.map { comparison in
            IntervalPlot.Row(label: comparison.variantID ?? ControlArm.defaultVariantName,
                             estimate: comparison.statistics.relativeLift, interval: comparison.statistics.relativeLiftCI95,
                             band: comparison.statistics.alwaysValid.relativeLiftInterval)
        }
        if !rows.isEmpty {
            html += IntervalPlot(title: "Relative lift of each variant over control (0 = same as control): the whisker "
                                     + "is the fixed-horizon 95 % interval, the shaded bar the always-valid one",
                                 rows: rows, reference: 0, cssClass: "forest-plot").render()
        }
        html += armsTable(arms: experiment.arms, comparisons: experiment.comparisons, rule: rule)
        html += cupedTable(experiment)
        for conversion in experiment.furtherConversions {
            html += "<h3>Conversion event \(HTMLPage.escape(conversion.conversionEvent)) (secondary; Holm over every "
                + "variant and secondary event)</h3>\n"
            html += armsTable(arms: conversion.arms, comparisons: conversion.comparisons, rule: rule)
        }
        return html
    }

    /// The sample ratio check stated in words: a mismatch, a pass, or why it was not run.
    static func sampleRatio(_ campaign: ControlCampaign) -> String {
        let arms = campaign.splitArms.map { "\($0.name) \($0.users)" }.joined(separator: ", ")
        guard let check = campaign.sampleRatio.check else {
            let reason = campaign.sampleRatioSkipped ?? "not enough data"
            return "Sample ratio: not checked, because \(reason). A skipped check is not a pass."
        }
        let p = CellFormat.significant(check.pValue) ?? "undefined"
        let split = splitPhrase(campaign)
        if check.mismatch {
            return "Sample ratio mismatch: the arm sizes (\(arms)) do not fit \(split) (p = \(p) < 0.001). "
                + "Assignment or logging is broken, most often lost control impressions; do not trust the comparison."
        }
        return "Sample ratio: the arm sizes (\(arms)) fit \(split) (p = \(p), mismatch only below 0.001)."
    }

    /// The expected split named with its source: `the configured split control=1,v1=9`.
    private static func splitPhrase(_ campaign: ControlCampaign) -> String {
        let split = campaign.expectedSplit.map { " " + $0.description } ?? ""
        switch campaign.splitSource {
        case .configured: return "the configured split" + split
        case .learnedFromSends: return "the split of the campaign's sends" + split
        case .unknown: return "the expected split"
        }
    }

    /// One row per arm: users, converters, rate, then for variants the lift with its fixed-horizon and its
    /// always-valid interval, the difference, both Holm p-values, whether `rule` calls the variant significant,
    /// and the chance to beat control.
    static func armsTable(arms: [ControlArm], comparisons: [ControlComparison], rule: SignificanceRule) -> String {
        var html = "<table class=\"arms\"><thead><tr><th>arm</th><th>users</th><th>converters</th><th>rate</th>"
            + "<th>relative lift [95 %]</th><th>always-valid lift [95 %]</th><th>difference [95 %]</th>"
            + "<th>p-value (Holm)</th><th>always-valid p-value (Holm)</th>"
            + "<th>significant (\(rule.rawValue))</th><th>chance to beat control</th></tr></thead><tbody>\n"
        for arm in arms {
            let statistics = arm.control ? nil : comparisons.first { $0.variantID == arm.variantID }?.statistics
            let cells: [String?] = [
                String(arm.users), arm.converters.map { String($0) }, CellFormat.fixed(arm.rate),
                withInterval(statistics?.relativeLift, statistics?.relativeLiftCI95),
                withInterval(statistics?.relativeLift, statistics?.alwaysValid.relativeLiftInterval),
                withInterval(statistics?.difference, statistics?.differenceCI95),
                CellFormat.significant(statistics?.pValueHolm), CellFormat.significant(statistics?.alwaysValid.pValueHolm),
                statistics.flatMap(rule.isSignificant).map { $0 ? "yes" : "no" },
                CellFormat.fixed(statistics?.chanceToBeatControl),
            ]
            html += "<tr\(arm.control ? " class=\"control\"" : "")><th scope=\"row\">\(HTMLPage.escape(arm.splitName))</th>"
            html += cells.map { "<td class=\"number\">\(HTMLPage.escape($0 ?? "–"))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    /// The variants CUPED adjusted (a run with `--cuped`): the adjusted lift with its interval beside the
    /// unadjusted one, the p-value and the variance removed; nothing when no variant was adjusted.
    static func cupedTable(_ experiment: ControlCampaign) -> String {
        let adjusted = experiment.comparisons.compactMap { comparison in
            comparison.cuped.map { (comparison, $0) }
        }
        guard let window = experiment.cupedWindow, !adjusted.isEmpty else {
            return ""
        }
        var html = "<p>Adjusted by CUPED on each user's conversions in the \(HTMLPage.escape(window.description)) "
            + "before exposure (p-values not Holm-adjusted; they do not decide significance):</p>\n"
        html += "<table class=\"arms\"><thead><tr><th>variant</th><th>relative lift [95 %]</th>"
            + "<th>CUPED lift [95 %]</th><th>CUPED p-value</th><th>variance reduction</th></tr></thead><tbody>\n"
        for (comparison, cuped) in adjusted {
            let cells: [String?] = [
                withInterval(comparison.statistics.relativeLift, comparison.statistics.relativeLiftCI95),
                withInterval(cuped.relativeLift, cuped.relativeLiftCI95),
                CellFormat.significant(cuped.pValue), CellFormat.fixed(cuped.varianceReduction),
            ]
            let name = comparison.variantID ?? ControlArm.defaultVariantName
            html += "<tr><th scope=\"row\">\(HTMLPage.escape(name))</th>"
            html += cells.map { "<td class=\"number\">\(HTMLPage.escape($0 ?? "–"))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    private static func withInterval(_ value: Double?, _ interval: Interval?) -> String? {
        guard let value = CellFormat.fixed(value) else {
            return nil
        }
        return value + (CellFormat.interval(interval?.lower, interval?.upper).map { " " + $0 } ?? "")
    }
}
