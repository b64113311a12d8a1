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
