/// A Prometheus histogram: cumulative bucket counts, sum and count.
struct Histogram {
    let upperBounds: [Double]
    private(set) var bucketCounts: [Int]
    private(set) var sum: Double = 0
    private(set) var count = 0

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        self.bucketCounts = Array(repeating: 0, count: upperBounds.count)
    }

    mutating func observe(_ value: Double) {
        if let bucket = upperBounds.firstIndex(where: { value <= $0 }) {
            bucketCounts[bucket] += 1
        }
        sum += value
        count += 1
    }

    /// The exposition lines of this histogram under `name`.
    func render(name: String, into text: inout String) {
        var cumulative = 0
        for (bound, bucketCount) in zip(upperBounds, bucketCounts) {
            cumulative += bucketCount
            text += "\(name)_bucket{le=\"\(PrometheusText.number(bound))\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(count)\n"
        text += "\(name)_sum \(PrometheusText.number(sum))\n"
        text += "\(name)_count \(count)\n"
    }
}

/// Formatting rules of the Prometheus text exposition format (version 0.0.4).
enum PrometheusText {
    /// `value` as the format writes it: an integer without a fraction, `+Inf`, `-Inf` and `NaN` as spelled there.
    static func number(_ value: Double) -> String {
        if value.isNaN {
            return "NaN"
        }
        if value.isInfinite {
            return value > 0 ? "+Inf" : "-Inf"
        }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func header(_ name: String, type: String, help: String, into text: inout String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    static func labelled(_ name: String, label: String, values: [String: Int], into text: inout String) {
        for (value, count) in values.sorted(by: { $0.key < $1.key }) {
            text += "\(name){\(label)=\"\(escapeLabel(value))\"} \(count)\n"
        }
    }
}
