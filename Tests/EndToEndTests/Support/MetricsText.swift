/// The samples of a Prometheus text exposition, by series: `name{label="value"}` or `name`.
struct MetricsText {
    private var samples: [String: Double] = [:]

    /// Parses the text served at `/metrics`.
    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
    }

    /// The value of `series`, e.g. `cardinal_ingest_events_total{outcome="accepted"}`; absent counts as 0,
    /// as Prometheus treats a labelled counter that has not been incremented yet.
    subscript(_ series: String) -> Double {
        samples[series] ?? 0
    }

    /// Whether the series is exported at all.
    func has(_ series: String) -> Bool {
        samples[series] != nil
    }
}
