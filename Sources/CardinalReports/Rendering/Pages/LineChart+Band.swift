extension LineChart {
    /// An interval per day around a line, such as a lift's 95 % interval: a shaded area, or its two bounds as
    /// thin dashed lines, so that two bands on one chart stay apart.
    struct Band: Sendable, Equatable {
        /// How the band is drawn.
        enum Style: Sendable, Equatable {
            /// A shaded area between the bounds.
            case area
            /// The two bounds as thin dashed lines.
            case bounds
        }

        /// The legend and table heading.
        var name: String
        /// The index of the series whose colour the band takes.
        var series: Int
        /// The lower bound per day; `nil` where the interval is undefined.
        var lower: [Double?]
        /// The upper bound per day; `nil` where the interval is undefined.
        var upper: [Double?]
        /// Area or bounds.
        var style: Style

        /// The band as SVG in `colour`, with the chart's coordinates: one shape per run of days with both
        /// bounds, never bridging a day without.
        func svg(colour: String, x: (Int) -> Double, y: (Double) -> Double) -> String {
            let defined = zip(lower, upper).map { $0 != nil && $1 != nil ? 0.0 : nil }
            var svg = "<g class=\"band\" data-band=\"\(HTMLPage.escape(name))\"><title>\(HTMLPage.escape(name))</title>"
            for run in LineChart.definedRuns(defined) {
                let upperPoints = run.map { point(x($0), y(upper[$0] ?? 0)) }
                let lowerPoints = run.map { point(x($0), y(lower[$0] ?? 0)) }
                switch style {
                case .area:
                    let outline = upperPoints + lowerPoints.reversed()
                    svg += "<polygon points=\"\(outline.joined(separator: " "))\" fill=\"\(colour)\" fill-opacity=\"0.2\" stroke=\"none\"/>"
                case .bounds:
                    for points in [upperPoints, lowerPoints] {
                        svg += "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>"
                    }
                }
            }
            return svg + "</g>"
        }

        /// A legend swatch drawn as the band is: a shaded square or a dashed line.
        func swatch(colour: String) -> String {
            let shape = switch style {
            case .area: "<rect x=\"0\" y=\"1\" width=\"28\" height=\"10\" fill=\"\(colour)\" fill-opacity=\"0.2\"/>"
            case .bounds: "<line x1=\"0\" y1=\"6\" x2=\"28\" y2=\"6\" stroke=\"\(colour)\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>"
            }
            return "<svg class=\"swatch\" width=\"28\" height=\"12\" viewBox=\"0 0 28 12\" aria-hidden=\"true\">\(shape)</svg>"
        }

        private func point(_ x: Double, _ y: Double) -> String {
            "\(SVGNumber.text(x)),\(SVGNumber.text(y))"
        }
    }
}
