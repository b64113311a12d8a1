@testable import CardinalReports
import CardinalStore
import Foundation
import Testing

/// The lift series of the campaign page from `control_arm_days` rows, and its chart. Numbers by hand (Python's
/// `math` and `statistics.NormalDist`, from the formulas of docs/experiment-statistics.md):
/// - 5,000 users per arm, control 250 converters (5 %), v1 300 (6 %): lift 0.2; always-valid interval
///   0.2 ± √0.009984 · 3.06097 = [−0.105903, 0.505903] (N = 10,000, Nρ² = 15.8723); Katz
///   exp(ln 1.2 ± 1.959964·√(1/300 − 1/5000 + 1/250 − 1/5000)) − 1 = [0.019306, 0.412726].
/// - 10,000 per arm, 500 and 600: lift 0.2; always-valid [−0.020943, 0.420943] (the worked example's
///   3.12706 and √0.004992); Katz [0.069212, 0.346786].
@Suite struct CumulativeLiftTests {
    private static let from = ReportDate("2026-11-01")!

    private static func row(_ day: Int, _ variant: String?, users: Int, converters: Int?) -> ControlArmDayRow {
        ControlArmDayRow(day: from.adding(days: day), variantID: variant, control: variant == nil, users: users,
                         converters: converters)
    }

    /// Day 1 nobody matured yet, day 2 half the users, day 3 all of them.
    private static let rows = [
        row(0, nil, users: 0, converters: 0), row(0, "v1", users: 0, converters: 0),
        row(1, nil, users: 5000, converters: 250), row(1, "v1", users: 5000, converters: 300),
        row(2, nil, users: 10000, converters: 500), row(2, "v1", users: 10000, converters: 600),
    ]

    private static func near(_ interval: Interval?, _ lower: Double, _ upper: Double) -> Bool {
        guard let interval else { return false }
        return abs(interval.lower - lower) < 1e-6 && abs(interval.upper - upper) < 1e-6
    }

    @Test("Each day with matured users in both arms gets the lift, its always-valid and its Katz interval")
    func points() throws {
        let lift = try #require(CumulativeLift(rows: Self.rows, from: Self.from))
        #expect(lift.days.map(\.description) == ["2026-11-01", "2026-11-02", "2026-11-03"])
        let variant = try #require(lift.variants.first)
        #expect(lift.variants.map(\.name) == ["v1"])
        // Day 1 has no users in either arm: no point.
        #expect(variant.points.map(\.day.description) == ["2026-11-02", "2026-11-03"])
        let (second, third) = (variant.points[0], variant.points[1])
        #expect(abs((second.lift ?? 0) - 0.2) < 1e-12 && abs((third.lift ?? 0) - 0.2) < 1e-12)
        #expect(Self.near(second.alwaysValid, -0.105903, 0.505903))
        #expect(Self.near(third.alwaysValid, -0.020943, 0.420943))
        #expect(Self.near(second.fixedHorizon, 0.019306, 0.412726))
        #expect(Self.near(third.fixedHorizon, 0.069212, 0.346786))
        #expect(third.control == ArmCounts(users: 10000, converters: 500))
    }

    @Test("Without a control arm or a conversion event there is no series")
    func nothingToCompare() {
        #expect(CumulativeLift(rows: Self.rows.filter { !$0.control }, from: Self.from) == nil)
        #expect(CumulativeLift(rows: [Self.row(0, nil, users: 3, converters: nil), Self.row(0, "v1", users: 3, converters: nil)],
                               from: Self.from) == nil)
        #expect(CumulativeLift(rows: [], from: Self.from) == nil)
    }

    @Test("The chart draws the lift as a line, the always-valid band shaded and the Katz bounds dashed, with every value in its table")
    func chart() throws {
        let html = CumulativeLiftChart.html(CumulativeLift(rows: Self.rows, from: Self.from))
        #expect(html.components(separatedBy: "<svg class=\"chart line-chart lift-chart\"").count - 1 == 1)
        #expect(html.contains("<title>v1: cumulative relative lift over control (0 = same as control)</title>"))
        // One shaded area and two dashed bounds over days 2–3, the reference line at 0.
        #expect(html.components(separatedBy: "fill-opacity=\"0.2\" stroke=\"none\"").count - 1 == 1)
        #expect(html.components(separatedBy: "stroke-dasharray=\"4 3\"/>").count - 1 == 2 + 1)
        #expect(html.contains("class=\"reference\""))
        #expect(html.contains("<tr><td>2026-11-01</td><td class=\"number\">–</td><td class=\"number\">–</td><td class=\"number\">–</td></tr>"))
        #expect(html.contains("<tr><td>2026-11-02</td><td class=\"number\">20%</td><td class=\"number\">[-10.59%, 50.59%]</td><td class=\"number\">[1.93%, 41.27%]</td></tr>"))
        #expect(html.contains("<tr><td>2026-11-03</td><td class=\"number\">20%</td><td class=\"number\">[-2.09%, 42.09%]</td><td class=\"number\">[6.92%, 34.68%]</td></tr>"))
    }

    @Test("A campaign with no lift to follow says so instead of drawing an empty chart")
    func noSeries() {
        #expect(CumulativeLiftChart.html(nil).contains("No lift to follow"))
        let unmatured = CumulativeLift(rows: Array(Self.rows.prefix(2)), from: Self.from)
        #expect(CumulativeLiftChart.html(unmatured).contains("v1: no day yet with matured users in both arms."))
    }

    @Test("report control's page draws each campaign's lift under its verdict when the lifts were read, and not otherwise")
    func controlReportPage() throws {
        let rows = [(nil as String?, true, 500), ("v1", false, 600)].map { variantID, isControl, converters in
            ControlArmRow(app: "shop", campaignID: "c1", conversionEvent: "purchase", window: .standard,
                          variantID: variantID, control: isControl, users: 10000, converters: converters,
                          exposedUsers: 10000, usersInSeveralArms: 0)
        }
        let asOf = Date(timeIntervalSince1970: 25 * 86_400)
        let report = ControlReport(
            scope: ReportScope(from: Self.from, to: Self.from.adding(days: 2)), asOf: asOf,
            allCampaigns: ControlReport.build(rows: rows, splits: [:], significance: [:], asOf: asOf)
        )
        let lift = try #require(CumulativeLift(rows: Self.rows, from: Self.from))

        let page = report.render(.html, lifts: [ControlReport.CampaignKey(app: "shop", campaignID: "c1"): lift])

        let campaign = try #require(page.components(separatedBy: "<h2>").first { $0.hasPrefix("Campaign c1 ") })
        #expect(campaign.contains("<h3>Cumulative lift against control</h3>"))
        #expect(campaign.contains("<tr><td>2026-11-03</td><td class=\"number\">20%</td><td class=\"number\">[-2.09%, 42.09%]</td>"))
        #expect(!report.render(.html).contains("Cumulative lift against control"))
    }
}
