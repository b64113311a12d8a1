/// How the charts tell series apart without relying on colour alone: the Okabe–Ito palette (distinguishable
/// with every common colour-vision deficiency), a dash pattern and a marker shape per series, so that a
/// grayscale print or a reader who cannot see the colours still tells the lines apart.
enum ChartStyle {
    /// Okabe & Ito, "Color Universal Design" (2008), without yellow, which is unreadable on white paper.
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000"]

    /// SVG `stroke-dasharray` values; the empty one is a solid line.
    static let dashes = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4"]

    /// The marker shapes, in the order series get them.
    enum Marker: CaseIterable {
        case circle, square, triangle, diamond, cross

        /// The marker centred on (`x`, `y`), filled with `colour`.
        func svg(x: Double, y: Double, colour: String) -> String {
            let (cx, cy) = (SVGNumber.text(x), SVGNumber.text(y))
            switch self {
            case .circle:
                return "<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"3.5\" fill=\"\(colour)\"/>"
            case .square:
                return "<rect x=\"\(SVGNumber.text(x - 3.5))\" y=\"\(SVGNumber.text(y - 3.5))\" width=\"7\" height=\"7\" fill=\"\(colour)\"/>"
            case .triangle:
                return polygon([(x, y - 4.5), (x + 4.5, y + 3.5), (x - 4.5, y + 3.5)], colour: colour)
            case .diamond:
                return polygon([(x, y - 4.5), (x + 4.5, y), (x, y + 4.5), (x - 4.5, y)], colour: colour)
            case .cross:
                return "<path d=\"M\(SVGNumber.text(x - 4)) \(SVGNumber.text(y - 4))L\(SVGNumber.text(x + 4)) "
                    + "\(SVGNumber.text(y + 4))M\(SVGNumber.text(x - 4)) \(SVGNumber.text(y + 4))L\(SVGNumber.text(x + 4)) "
                    + "\(SVGNumber.text(y - 4))\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            }
        }

        private func polygon(_ points: [(Double, Double)], colour: String) -> String {
            let list = points.map { "\(SVGNumber.text($0.0)),\(SVGNumber.text($0.1))" }.joined(separator: " ")
            return "<polygon points=\"\(list)\" fill=\"\(colour)\"/>"
        }
    }

    /// The look of the series at `index`: colour, dash and marker cycle at different lengths, so that the
    /// first 42 series all differ in at least one of them.
    static func series(_ index: Int) -> (colour: String, dash: String, marker: Marker) {
        (palette[index % palette.count], dashes[index % dashes.count], Marker.allCases[index % Marker.allCases.count])
    }

    /// A small legend swatch: the series' line with its marker, as an inline SVG.
    static func swatch(_ index: Int) -> String {
        let look = series(index)
        let dash = look.dash.isEmpty ? "" : " stroke-dasharray=\"\(look.dash)\""
        return "<svg class=\"swatch\" width=\"28\" height=\"12\" viewBox=\"0 0 28 12\" aria-hidden=\"true\">"
            + "<line x1=\"0\" y1=\"6\" x2=\"28\" y2=\"6\" stroke=\"\(look.colour)\" stroke-width=\"2\"\(dash)/>"
            + look.marker.svg(x: 14, y: 6, colour: look.colour) + "</svg>"
    }
}
