/// Estimates with their 95 % intervals, one row per arm, drawn as inline SVG: a marker at the estimate, a
/// whisker across the interval and, where given, a shaded bar across a second, wider one, against an optional
/// reference line (0 for a lift, so that a whisker that crosses it reads "not different from control"). The rates chart and the forest plot are both this.
struct IntervalPlot: Sendable, Equatable {
    /// One row.
    struct Row: Sendable, Equatable {
        /// The row's label (a variant id: user data, escaped when drawn).
        var label: String
        /// The estimate; `nil` draws the label with "undefined".
        var estimate: Double?
        /// The 95 % interval; `nil` draws the estimate alone.
        var interval: Interval?
        /// A second, wider interval drawn as a shaded bar behind the whisker (the forest plot's always-valid
        /// interval, beside the fixed-horizon whisker); `nil` for none.
        var band: Interval? = nil
    }

    /// The chart's title, shown as the caption and as the SVG `<title>`.
    var title: String
    /// The rows, top to bottom.
    var rows: [Row]
    /// A vertical line to compare with, such as 0 for a lift; `nil` for none.
    var reference: Double?
    /// The CSS class of the `<svg>`, e.g. `forest-plot`.
    var cssClass: String

    private static let width = 640.0
    private static let labelWidth = 140.0
    private static let right = 16.0
    private static let rowHeight = 26.0
    private static let axisHeight = 24.0

    /// The chart as a `<figure>` with its caption and SVG.
    func render() -> String {
        let (low, high) = domain
        let plotWidth = Self.width - Self.labelWidth - Self.right
        func x(_ value: Double) -> Double {
            Self.labelWidth + plotWidth * (value - low) / (high - low)
        }
        let height = Double(rows.count) * Self.rowHeight + Self.axisHeight
        var svg = "<svg class=\"chart \(cssClass)\" viewBox=\"0 0 \(Int(Self.width)) \(SVGNumber.text(height))\" role=\"img\">"
        svg += "<title>\(HTMLPage.escape(title))</title>"
        if let reference {
            let referenceX = SVGNumber.text(x(reference))
            svg += "<line class=\"reference\" x1=\"\(referenceX)\" y1=\"0\" x2=\"\(referenceX)\" y2=\"\(SVGNumber.text(height - Self.axisHeight))\"/>"
        }
        for (index, row) in rows.enumerated() {
            let rowY = Double(index) * Self.rowHeight + Self.rowHeight / 2
            let look = ChartStyle.series(index)
            svg += "<g class=\"interval-row\" data-label=\"\(HTMLPage.escape(row.label))\"><title>\(HTMLPage.escape(describe(row)))</title>"
            svg += "<text class=\"label\" x=\"\(Int(Self.labelWidth - 8))\" y=\"\(SVGNumber.text(rowY))\" text-anchor=\"end\" dy=\"0.3em\">\(HTMLPage.escape(Self.shortened(row.label)))</text>"
            if let band = row.band {
                let left = x(band.lower)
                svg += "<rect class=\"band\" x=\"\(SVGNumber.text(left))\" y=\"\(SVGNumber.text(rowY - 6))\" width=\"\(SVGNumber.text(x(band.upper) - left))\" height=\"12\" fill=\"\(look.colour)\" fill-opacity=\"0.2\" stroke=\"none\"/>"
            }
            if let interval = row.interval {
                svg += "<line class=\"whisker\" x1=\"\(SVGNumber.text(x(interval.lower)))\" y1=\"\(SVGNumber.text(rowY))\" x2=\"\(SVGNumber.text(x(interval.upper)))\" y2=\"\(SVGNumber.text(rowY))\" stroke=\"\(look.colour)\"/>"
            }
            if let estimate = row.estimate {
                svg += look.marker.svg(x: x(estimate), y: rowY, colour: look.colour)
            } else {
                svg += "<text class=\"axis\" x=\"\(Int(Self.labelWidth))\" y=\"\(SVGNumber.text(rowY))\" dy=\"0.3em\">undefined</text>"
            }
            svg += "</g>"
        }
        let axisY = height - Self.axisHeight
        for (index, tick) in [low, (low + high) / 2, high].enumerated() {
            svg += "<text class=\"axis\" x=\"\(SVGNumber.text(x(tick)))\" y=\"\(SVGNumber.text(axisY + 16))\" text-anchor=\"\(SVGNumber.anchor(index, of: 3))\">\(SVGNumber.percent(tick))</text>"
        }
        svg += "</svg>"
        return "<figure class=\"chart\">\n<figcaption>\(HTMLPage.escape(title))</figcaption>\n\(svg)\n</figure>\n"
    }

    /// `v1: 12.5% [10.1%, 15.2%]`: what a screen reader says for a row.
    private func describe(_ row: Row) -> String {
        guard let estimate = row.estimate else {
            return "\(row.label): undefined"
        }
        let interval = row.interval.map { " [\(SVGNumber.percent($0.lower)), \(SVGNumber.percent($0.upper))]" } ?? ""
        let band = row.band.map { ", always-valid [\(SVGNumber.percent($0.lower)), \(SVGNumber.percent($0.upper))]" } ?? ""
        return "\(row.label): \(SVGNumber.percent(estimate))\(interval)\(band)"
    }

    /// The range of the x axis: every estimate, interval and band end and the reference, padded by 5 % on each
    /// side; a single value gets a range around it.
    private var domain: (Double, Double) {
        var values = rows.flatMap {
            [$0.estimate, $0.interval?.lower, $0.interval?.upper, $0.band?.lower, $0.band?.upper].compactMap { $0 }
        }
        if let reference {
            values.append(reference)
        }
        let low = values.min() ?? 0
        let high = values.max() ?? 1
        guard high > low else {
            return (low - 0.05, high + 0.05)
        }
        let padding = (high - low) * 0.05
        // Rates cannot be negative: an axis that starts below 0 would only show a meaningless label.
        let floor = reference == nil && low >= 0 ? 0 : -Double.infinity
        return (max(floor, low - padding), high + padding)
    }

    /// Long labels are cut in the drawing (the tables beside the chart show them whole).
    private static func shortened(_ label: String) -> String {
        label.count > 18 ? String(label.prefix(17)) + "…" : label
    }
}
