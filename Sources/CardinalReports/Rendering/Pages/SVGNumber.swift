import Foundation

/// Coordinates and labels as short, locale-independent text, so that pages stay small and identical across
/// machines.
enum SVGNumber {
    /// A coordinate with at most one decimal (a tenth of a pixel is below what a screen shows).
    static func text(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    /// An axis label for a count: `1200`, `15k`, `2.5M`.
    static func count(_ value: Double) -> String {
        switch abs(value) {
        case 1_000_000...: return trimmed(value / 1_000_000) + "M"
        case 10_000...: return trimmed(value / 1000) + "k"
        default: return trimmed(value)
        }
    }

    /// A rate or lift as a percentage with up to 2 decimals: `12.5%`, `-3%`.
    static func percent(_ value: Double) -> String {
        trimmed(value * 100, decimals: 2) + "%"
    }

    private static func trimmed(_ value: Double, decimals: Int = 1) -> String {
        var text = String(format: "%.\(decimals)f", value)
        while text.contains("."), text.hasSuffix("0") || text.hasSuffix(".") {
            text.removeLast()
        }
        return text == "-0" ? "0" : text
    }

    /// The `text-anchor` of the label at `index` of `count` along an axis: the first starts at its tick and
    /// the last ends at it, so that neither is cut off at the edge of the drawing.
    static func anchor(_ index: Int, of count: Int) -> String {
        switch index {
        case 0 where count > 1: "start"
        case count - 1 where count > 1: "end"
        default: "middle"
        }
    }

    /// Round tick values from 0 to at least `maximum`: 1, 2 or 5 times a power of ten apart, about `count`
    /// of them.
    static func ticks(upTo maximum: Double, count: Int = 4) -> [Double] {
        guard maximum > 0, maximum.isFinite else {
            return [0, 1]
        }
        return ticks(from: 0, to: maximum, count: count)
    }

    /// Round tick values from at most `low` to at least `high`, as ``ticks(upTo:count:)`` spaces them; a
    /// range that is empty or not finite gets `low` and `low + 1`.
    static func ticks(from low: Double, to high: Double, count: Int = 4) -> [Double] {
        guard high > low, low.isFinite, high.isFinite else {
            return low.isFinite ? [low, low + 1] : [0, 1]
        }
        let raw = (high - low) / Double(count)
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        let bottom = (low / step).rounded(.down)
        let top = (high / step).rounded(.up)
        return (Int(bottom)...Int(top)).map { Double($0) * step }
    }
}
