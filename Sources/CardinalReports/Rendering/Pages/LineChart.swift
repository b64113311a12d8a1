/// A line chart of daily values drawn as inline SVG: one polyline with markers per series over the same days,
/// optional bands (an interval per day) around them, a titled `<svg role="img">`, and an HTML legend and data
/// table so that every number is also real text. Counts (the daily activity) or lifts (the cumulative lift
/// against control, with its intervals as bands).
struct LineChart: Sendable, Equatable {
    /// One line.
    struct Series: Sendable, Equatable {
        /// The legend text (a variant id: user data, escaped when drawn).
        var name: String
        /// One value per day of ``LineChart/days``; `nil` where it is undefined (the line breaks there).
        var values: [Double?]
    }

    /// What the values are, which decides the y axis, its labels and the table's.
    enum Scale: Sendable, Equatable {
        /// Counts, from 0 up.
        case counts
        /// Relative lifts, as percentages around a reference line at 0 (see ``LineChart/domain``).
        case lift
    }

    /// The chart's title, shown as the heading and as the SVG `<title>`.
    var title: String
    /// The x axis labels (`YYYY-MM-DD`), in order.
    var days: [String]
    /// The lines.
    var series: [Series]
    /// Intervals drawn around the lines, under them.
    var bands: [Band] = []
    /// Counts or lifts.
    var scale: Scale = .counts

    private static let width = 640.0
    private static let height = 220.0
    private static let left = 48.0
    private static let right = 12.0
    private static let top = 10.0
    private static let bottom = 28.0

    /// The chart as a `<figure>`: heading, SVG, legend and a collapsed table of the values.
    func render() -> String {
        let ticks = yTicks
        let (low, high) = (ticks.first ?? 0, ticks.last ?? 1)
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        func x(_ day: Int) -> Double {
            days.count > 1 ? Self.left + plotWidth * Double(day) / Double(days.count - 1) : Self.left + plotWidth / 2
        }
        // A value beyond the axis (a band's early, widest days) is drawn at its edge.
        func y(_ value: Double) -> Double {
            Self.top + plotHeight * (1 - (min(max(value, low), high) - low) / (high - low))
        }
        let markerStep = max(1, (days.count + 9) / 10)
        // A lift chart has a class of its own, so that counting the daily charts does not count it.
        let cssClass = scale == .counts ? "chart line-chart" : "chart line-chart lift-chart"
        var svg = "<svg class=\"\(cssClass)\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\">"
        svg += "<title>\(HTMLPage.escape(title))</title>"
        for tick in ticks {
            let tickY = SVGNumber.text(y(tick))
            svg += "<line class=\"grid\" x1=\"\(Int(Self.left))\" y1=\"\(tickY)\" x2=\"\(Int(Self.width - Self.right))\" y2=\"\(tickY)\"/>"
            svg += "<text class=\"axis\" x=\"\(Int(Self.left - 4))\" y=\"\(tickY)\" text-anchor=\"end\" dy=\"0.3em\">\(label(tick))</text>"
        }
        if scale == .lift {
            let zeroY = SVGNumber.text(y(0))
            svg += "<line class=\"reference\" x1=\"\(Int(Self.left))\" y1=\"\(zeroY)\" x2=\"\(Int(Self.width - Self.right))\" y2=\"\(zeroY)\"/>"
        }
        for day in labelledDays {
            svg += "<text class=\"axis\" x=\"\(SVGNumber.text(x(day)))\" y=\"\(Int(Self.height - 8))\" text-anchor=\"\(SVGNumber.anchor(day, of: days.count))\">\(HTMLPage.escape(String(days[day].suffix(5))))</text>"
        }
        for band in bands {
            svg += band.svg(colour: ChartStyle.series(band.series).colour, x: x, y: y)
        }
        for (index, line) in series.enumerated() {
            let look = ChartStyle.series(index)
            let dash = look.dash.isEmpty ? "" : " stroke-dasharray=\"\(look.dash)\""
            svg += "<g class=\"series\" data-series=\"\(HTMLPage.escape(line.name))\"><title>\(HTMLPage.escape(line.name))</title>"
            for run in Self.definedRuns(line.values) {
                let points = run.map { "\(SVGNumber.text(x($0))),\(SVGNumber.text(y(line.values[$0] ?? 0)))" }
                svg += "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(look.colour)\" stroke-width=\"2\"\(dash)/>"
            }
            // About ten markers per line are enough to tell the shapes apart, and keep long ranges small.
            for day in stride(from: index % markerStep, to: line.values.count, by: markerStep) {
                if let value = line.values[day] {
                    svg += look.marker.svg(x: x(day), y: y(value), colour: look.colour)
                }
            }
            svg += "</g>"
        }
        svg += "</svg>"
        return "<figure class=\"chart\">\n<figcaption>\(HTMLPage.escape(title))</figcaption>\n\(svg)\n\(legend)\(dataTable)</figure>\n"
    }

    /// The runs of consecutive days with a value, each as its day indices: a line is drawn through each run,
    /// never across a day without a value.
    static func definedRuns(_ values: [Double?]) -> [[Int]] {
        var runs: [[Int]] = []
        var current: [Int] = []
        for (day, value) in values.enumerated() {
            if value != nil {
                current.append(day)
            } else if !current.isEmpty {
                runs.append(current)
                current = []
            }
        }
        return current.isEmpty ? runs : runs + [current]
    }

    /// The y axis's round ticks, its first and last the axis's ends: from 0 for counts; for lifts over
    /// ``domain``.
    var yTicks: [Double] {
        switch scale {
        case .counts:
            return SVGNumber.ticks(upTo: series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0)
        case .lift:
            let (low, high) = domain
            return SVGNumber.ticks(from: low, to: high)
        }
    }

    /// The span a lift chart's y axis covers: every value of the lines, 0, and the bands of the last day with a
    /// band, widened by half that span on each side, but never below −100 % (no lift is lower). The bands of
    /// earlier days, which are wider (that is what the chart shows), are cut at the edges rather than
    /// flattening today's numbers; the table keeps their bounds.
    var domain: (low: Double, high: Double) {
        var values: [Double] = [0]
        for line in series {
            values += line.values.compactMap { $0 }
        }
        for band in bands {
            if let last = band.lower.indices.last(where: { band.lower[$0] != nil && band.upper[$0] != nil }) {
                values += [band.lower[last], band.upper[last]].compactMap { $0 }
            }
        }
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        let padding = (high - low) / 2
        return (max(-1, low - padding), high + padding)
    }

    /// An axis label: a count (`15k`) or a percentage.
    private func label(_ value: Double) -> String {
        scale == .counts ? SVGNumber.count(value) : SVGNumber.percent(value)
    }

    /// The days that get an axis label: all of a short range, otherwise about six spread evenly (always the
    /// first and the last), so that labels never overlap.
    private var labelledDays: [Int] {
        guard days.count > 7 else {
            return Array(days.indices)
        }
        let step = (days.count - 1 + 5) / 6
        // A label closer than half a step to the last one would overlap it (32 days: days 30 and 31).
        var labelled = Array(stride(from: 0, to: days.count - 1 - step / 2, by: step))
        labelled.append(days.count - 1)
        return labelled
    }

    private var legend: String {
        let items = series.indices.map { "<li>\(ChartStyle.swatch($0)) \(HTMLPage.escape(series[$0].name))</li>" }
            + bands.map { "<li>\($0.swatch(colour: ChartStyle.series($0.series).colour)) \(HTMLPage.escape($0.name))</li>" }
        return "<ul class=\"legend\">\(items.joined())</ul>\n"
    }

    private var dataTable: String {
        var html = "<details><summary>Values</summary><table><thead><tr><th>day</th>"
        html += (series.map(\.name) + bands.map(\.name)).map { "<th>\(HTMLPage.escape($0))</th>" }.joined()
        html += "</tr></thead><tbody>"
        for day in days.indices {
            html += "<tr><td>\(HTMLPage.escape(days[day]))</td>"
            html += series.map { "<td class=\"number\">\(cell($0.values[day]))</td>" }.joined()
            html += bands.map { band in
                guard let lower = band.lower[day], let upper = band.upper[day] else {
                    return "<td class=\"number\">–</td>"
                }
                return "<td class=\"number\">[\(cell(lower)), \(cell(upper))]</td>"
            }.joined()
            html += "</tr>"
        }
        return html + "</tbody></table></details>\n"
    }

    /// A table cell's number: a whole count or a percentage; `–` where undefined.
    private func cell(_ value: Double?) -> String {
        guard let value else {
            return "–"
        }
        return scale == .counts ? String(Int(value)) : SVGNumber.percent(value)
    }
}
