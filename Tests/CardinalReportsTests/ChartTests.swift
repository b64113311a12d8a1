@testable import CardinalReports
import Foundation
import Testing

@Suite struct ChartTests {
    private static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test("A line chart draws one titled group and one polyline per series, with a point per day")
    func lineChartSeries() throws {
        let chart = LineChart(title: "Clicks per day", days: ["2026-11-01", "2026-11-02", "2026-11-03"], series: [
            .init(name: "v1", values: [1, 4, 2]),
            .init(name: "v2", values: [0, 0, 7]),
        ])
        let html = chart.render()
        #expect(Self.count("<g class=\"series\"", in: html) == 2)
        #expect(Self.count("<polyline", in: html) == 2)
        #expect(html.contains("<svg class=\"chart line-chart\""))
        #expect(html.contains("<title>Clicks per day</title>"))
        let polyline = try #require(html.firstMatch(of: /<polyline points="([^"]*)"/))
        #expect(polyline.1.split(separator: " ").count == 3)
        // The values table keeps every number as text, in day order.
        #expect(html.contains("<tr><td>2026-11-03</td><td class=\"number\">2</td><td class=\"number\">7</td></tr>"))
    }

    @Test("A 30-day line keeps every point but draws about ten markers, so that long ranges stay small")
    func markerThinning() throws {
        let days = (1...30).map { "2026-11-\($0 < 10 ? "0" : "")\($0)" }
        let html = LineChart(title: "Impressions", days: days, series: [.init(name: "v1", values: days.map { _ in 5 })]).render()
        let polyline = try #require(html.firstMatch(of: /<polyline points="([^"]*)"/))
        #expect(polyline.1.split(separator: " ").count == 30)
        // The first series draws circles, at days 0, 3, …, 27, and one more in its legend swatch.
        #expect(Self.count("<circle", in: html) == 10 + 1)
    }

    @Test("Day labels stay at least half a step from the last one, so that no two overlap")
    func dayLabels() {
        // 32 days: a label every 6 days (0, 6, …, 24) and the last (31); day 30 would touch it.
        let days = (1...32).map { String(format: "2026-10-%02d", $0) }
        let html = LineChart(title: "Impressions", days: days, series: [.init(name: "v1", values: days.map { _ in 1 })]).render()
        let labels = html.matches(of: /text-anchor="(?:start|middle|end)">([0-9-]+)<\/text>/).map { String($0.1) }
        #expect(labels == ["10-01", "10-07", "10-13", "10-19", "10-25", "10-32"])
    }

    @Test("Series differ in colour, dash and marker, so that they stay apart in grayscale")
    func seriesLooks() {
        let looks = (0..<5).map(ChartStyle.series)
        #expect(Set(looks.map(\.colour)).count == 5)
        #expect(Set(looks.map(\.dash)).count == 5)
        #expect(Set(looks.map { "\($0.marker)" }).count == 5)
    }

    @Test("The y axis ticks are round numbers from 0 up to at least the largest value")
    func ticks() {
        #expect(SVGNumber.ticks(upTo: 7) == [0, 2, 4, 6, 8])
        let ticks = SVGNumber.ticks(upTo: 1234)
        #expect(ticks.first == 0 && (ticks.last ?? 0) >= 1234 && ticks.count <= 6)
        #expect(SVGNumber.ticks(upTo: 0) == [0, 1])
    }

    @Test("Lift ticks are round numbers below the lowest and above the highest value, 0 among them")
    func liftTicks() {
        let ticks = SVGNumber.ticks(from: -0.3, to: 0.5)
        let expected = [-0.4, -0.2, 0, 0.2, 0.4, 0.6]
        #expect(ticks.count == expected.count && zip(ticks, expected).allSatisfy { abs($0 - $1) < 1e-12 })
    }

    @Test("A lift chart's axis spans the lines, 0 and the last day's bands padded by half, never below -100 %")
    func liftDomain() {
        // Values 0.1 and 0.3, last band [0, 0.4]: span 0 to 0.4, padded by 0.2 on each side.
        let chart = LineChart(title: "Lift", days: ["2026-11-01", "2026-11-02", "2026-11-03"],
                              series: [.init(name: "v1", values: [nil, 0.1, 0.3])],
                              bands: [.init(name: "band", series: 0, lower: [nil, -5, 0], upper: [nil, 5, 0.4], style: .area)],
                              scale: .lift)
        #expect(abs(chart.domain.low - -0.2) < 1e-12 && abs(chart.domain.high - 0.6) < 1e-12)
        // A wide last band stops at -100 %.
        let wide = LineChart(title: "Lift", days: ["2026-11-01"], series: [.init(name: "v1", values: [0.5])],
                             bands: [.init(name: "band", series: 0, lower: [-2], upper: [3], style: .area)], scale: .lift)
        #expect(wide.domain.low == -1)
    }

    @Test("A line breaks at a day without a value instead of bridging it")
    func lineBreaks() {
        #expect(LineChart.definedRuns([1, nil, 2, 3, nil]) == [[0], [2, 3]])
        let html = LineChart(title: "Lift", days: ["a", "b", "c", "d"], series: [.init(name: "v1", values: [1, nil, 2, 3])]).render()
        #expect(Self.count("<polyline", in: html) == 2)
    }

    @Test("An interval plot has one row per estimate, a whisker for each interval and a reference line at 0")
    func forestRows() {
        let plot = IntervalPlot(title: "Lift", rows: [
            .init(label: "v1", estimate: 0.1, interval: Interval(lower: -0.05, upper: 0.3)),
            .init(label: "v2", estimate: -0.2, interval: Interval(lower: -0.4, upper: 0.01)),
            .init(label: "v3", estimate: nil, interval: nil),
        ], reference: 0, cssClass: "forest-plot")
        let html = plot.render()
        #expect(Self.count("<g class=\"interval-row\"", in: html) == 3)
        #expect(Self.count("class=\"whisker\"", in: html) == 2)
        #expect(Self.count("class=\"reference\"", in: html) == 1)
        #expect(html.contains("<title>v1: 10% [-5%, 30%]</title>"))
        #expect(html.contains("<title>v3: undefined</title>"))
    }

    @Test("Series names and labels are escaped in the SVG, the legend and the table")
    func escaping() {
        let name = "<script>alert(\"x\")</script>&'"
        let html = LineChart(title: name, days: ["2026-11-01"], series: [.init(name: name, values: [1])]).render()
            + IntervalPlot(title: name, rows: [.init(label: name, estimate: 0.5, interval: nil)], reference: nil,
                           cssClass: "rate-plot").render()
        #expect(!html.contains("<script>"))
        #expect(!html.contains("\"x\""))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"))
    }
}
