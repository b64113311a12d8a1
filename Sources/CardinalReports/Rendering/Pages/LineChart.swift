/// A line chart of daily counts drawn as inline SVG: one polyline with markers per series over the same days,
/// a titled `<svg role="img">`, and an HTML legend and data table so that every number is also real text.
struct LineChart: Sendable, Equatable {
    /// One line.
    struct Series: Sendable, Equatable {
        /// The legend text (a variant id: user data, escaped when drawn).
        var name: String
        /// One value per day of ``LineChart/days``.
        var values: [Double]
    }

    /// The chart's title, shown as the heading and as the SVG `<title>`.
    var title: String
    /// The x axis labels (`YYYY-MM-DD`), in order.
    var days: [String]
    /// The lines.
    var series: [Series]

    private static let width = 640.0
    private static let height = 220.0
    private static let left = 48.0
    private static let right = 12.0
    private static let top = 10.0
    private static let bottom = 28.0

    /// The chart as a `<figure>`: heading, SVG, legend and a collapsed table of the values.
    func render() -> String {
        let maximum = series.flatMap(\.values).max() ?? 0
        let ticks = SVGNumber.ticks(upTo: maximum)
        let yTop = ticks.last ?? 1
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        func x(_ day: Int) -> Double {
            days.count > 1 ? Self.left + plotWidth * Double(day) / Double(days.count - 1) : Self.left + plotWidth / 2
        }
        func y(_ value: Double) -> Double {
            Self.top + plotHeight * (1 - value / yTop)
        }
        let markerStep = max(1, (days.count + 9) / 10)
        var svg = "<svg class=\"chart line-chart\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\">"
        svg += "<title>\(HTMLPage.escape(title))</title>"
        for tick in ticks {
            let tickY = SVGNumber.text(y(tick))
            svg += "<line class=\"grid\" x1=\"\(Int(Self.left))\" y1=\"\(tickY)\" x2=\"\(Int(Self.width - Self.right))\" y2=\"\(tickY)\"/>"
            svg += "<text class=\"axis\" x=\"\(Int(Self.left - 4))\" y=\"\(tickY)\" text-anchor=\"end\" dy=\"0.3em\">\(SVGNumber.count(tick))</text>"
        }
        for day in labelledDays {
            svg += "<text class=\"axis\" x=\"\(SVGNumber.text(x(day)))\" y=\"\(Int(Self.height - 8))\" text-anchor=\"\(SVGNumber.anchor(day, of: days.count))\">\(HTMLPage.escape(String(days[day].suffix(5))))</text>"
        }
        for (index, line) in series.enumerated() {
            let look = ChartStyle.series(index)
            let points = line.values.indices.map { "\(SVGNumber.text(x($0))),\(SVGNumber.text(y(line.values[$0])))" }
            let dash = look.dash.isEmpty ? "" : " stroke-dasharray=\"\(look.dash)\""
            svg += "<g class=\"series\" data-series=\"\(HTMLPage.escape(line.name))\"><title>\(HTMLPage.escape(line.name))</title>"
            svg += "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(look.colour)\" stroke-width=\"2\"\(dash)/>"
            // About ten markers per line are enough to tell the shapes apart, and keep long ranges small.
            for day in stride(from: index % markerStep, to: line.values.count, by: markerStep) {
                svg += look.marker.svg(x: x(day), y: y(line.values[day]), colour: look.colour)
            }
            svg += "</g>"
        }
        svg += "</svg>"
        return "<figure class=\"chart\">\n<figcaption>\(HTMLPage.escape(title))</figcaption>\n\(svg)\n\(legend)\(dataTable)</figure>\n"
    }

    /// The days that get an axis label: all of a short range, otherwise about six spread evenly (always the
    /// first and the last), so that labels never overlap.
    private var labelledDays: [Int] {
        guard days.count > 7 else {
            return Array(days.indices)
        }
        let step = (days.count - 1 + 5) / 6
        var labelled = Array(stride(from: 0, to: days.count - 1, by: step))
        labelled.append(days.count - 1)
        return labelled
    }

    private var legend: String {
        let items = series.indices.map { "<li>\(ChartStyle.swatch($0)) \(HTMLPage.escape(series[$0].name))</li>" }
        return "<ul class=\"legend\">\(items.joined())</ul>\n"
    }

    private var dataTable: String {
        var html = "<details><summary>Values</summary><table><thead><tr><th>day</th>"
        html += series.map { "<th>\(HTMLPage.escape($0.name))</th>" }.joined() + "</tr></thead><tbody>"
        for day in days.indices {
            html += "<tr><td>\(HTMLPage.escape(days[day]))</td>"
            html += series.map { "<td class=\"number\">\(Int($0.values[day]))</td>" }.joined() + "</tr>"
        }
        return html + "</tbody></table></details>\n"
    }
}
