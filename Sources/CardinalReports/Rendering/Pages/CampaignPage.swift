import CardinalStore
import Foundation

/// The page of one campaign in a report run: daily activity per variant, click and dismissal rates with
/// their intervals, the experiment against control (forest plot, Holm p-values, chance to beat control, the
/// sample ratio verdict), the cumulative lift day by day with its always-valid band, the campaign's
/// integration findings, the definitions, and the run's as-of time and range.
struct CampaignPage: Sendable {
    /// The app's name.
    var app: String
    /// The campaign (user data).
    var campaignID: String
    /// What the run covered.
    var scope: ReportScope
    /// The maturity cut-off of the control report.
    var asOf: Date
    /// The campaign's unique-impressions rows over the whole range, one per variant × channel.
    var totals: [UniqueImpressionsRow]
    /// The campaign's unique-impressions rows broken down by day.
    var daily: [UniqueImpressionsRow]
    /// The campaign in the control report, when it has a conversion goal or a control arm.
    var experiment: ControlCampaign?
    /// The experiment's lift day by day; `nil` when it has no control arm or conversion event.
    var lift: CumulativeLift? = nil
    /// The campaign's findings, most severe first.
    var findings: [AnomalyFinding]
    /// The index page to link back to, or `nil` for a page on its own.
    var indexLink: String?

    /// The page as a self-contained HTML document.
    func render() -> String {
        var sections: [HTMLPage.Section] = []
        if let indexLink {
            sections.append(HTMLPage.Section(heading: nil, body: "<nav><a href=\"\(HTMLPage.escape(indexLink))\">← All campaigns of the run</a></nav>\n"))
        }
        sections.append(HTMLPage.Section(heading: "Daily activity per variant", body: dailyCharts))
        sections.append(HTMLPage.Section(heading: "Click and dismissal rates", body: rateCharts))
        sections.append(HTMLPage.Section(heading: "Experiment against control", body: ExperimentVerdict.html(experiment, rule: experiment?.significanceSetting ?? .standard)))
        if experiment != nil {
            sections.append(HTMLPage.Section(heading: "Cumulative lift against control", body: CumulativeLiftChart.html(lift)))
        }
        sections.append(HTMLPage.Section(
            heading: "Integration findings",
            body: findings.isEmpty ? "<p>No findings for this campaign.</p>\n" : FindingsTable.html(findings)
        ))
        return HTMLPage.runPage(title: "Campaign \(campaignID) (\(app))", scope: scope, asOf: asOf, sections: sections)
    }

    /// The arm a row belongs to: the variant (or `default`), with the channel when the campaign has several.
    private func seriesName(_ row: UniqueImpressionsRow) -> String {
        let variant = row.variantID ?? ControlArm.defaultVariantName
        return Set(totals.map(\.channel)).count > 1 ? "\(variant) · \(row.channel)" : variant
    }

    /// Every day of the range, `YYYY-MM-DD`.
    private var days: [String] {
        guard scope.from <= scope.to else {
            return []
        }
        return (0...(scope.to.daysSinceEpoch - scope.from.daysSinceEpoch)).map { scope.from.adding(days: $0).description }
    }

    /// The four daily line charts; a day without events is 0.
    var dailyCharts: String {
        let names = totals.map(seriesName)
        guard !names.isEmpty else {
            return "<p>No impressions, clicks or dismissals in the range.</p>\n"
        }
        let dayIndex = Dictionary(uniqueKeysWithValues: days.enumerated().map { ($1, $0) })
        func chart(_ title: String, _ value: (UniqueImpressionsRow) -> Int64) -> String {
            var values = Dictionary(uniqueKeysWithValues: names.map { ($0, [Double](repeating: 0, count: days.count)) })
            for row in daily {
                if let day = row.breakdown.flatMap({ dayIndex[$0] }) {
                    values[seriesName(row), default: [Double](repeating: 0, count: days.count)][day] += Double(value(row))
                }
            }
            return LineChart(title: title, days: days, series: names.map { LineChart.Series(name: $0, values: values[$0] ?? []) }).render()
        }
        return "<p class=\"note\">The control arm is shown no message, so it has no impressions, clicks or dismissals; its users appear under Experiment.</p>\n"
            + chart("Impressions per day", \.impressions)
            + chart("Unique daily impressions per day", \.uniqueDailyImpressions)
            + chart("Clicks per day", \.clicks)
            + chart("Dismissals per day", \.dismissals)
    }

    /// Unique click and dismissal rates per arm with Wilson 95 % intervals.
    var rateCharts: String {
        guard !totals.isEmpty else {
            return "<p>No impressions in the range.</p>\n"
        }
        func rows(_ numerator: (UniqueImpressionsRow) -> Int64) -> [IntervalPlot.Row] {
            totals.map { row in
                let counts = ArmCounts(users: Int(row.uniqueImpressions), converters: Int(numerator(row)))
                return IntervalPlot.Row(
                    label: seriesName(row), estimate: counts.rate,
                    interval: counts.hasConsistentCounts ? NewcombeInterval.wilson(counts, z: ControlStatistics.z95) : nil
                )
            }
        }
        return IntervalPlot(title: "Unique click rate (users who clicked ÷ users with an impression), 95 % interval",
                            rows: rows(\.uniqueClicks), reference: nil, cssClass: "rate-plot").render()
            + IntervalPlot(title: "Unique dismissal rate (users who dismissed ÷ users with an impression), 95 % interval",
                           rows: rows(\.uniqueDismissals), reference: nil, cssClass: "rate-plot").render()
    }
}
