import ArgumentKit

/// The shapes most of `cardinald`'s options share: a count or a duration with a default and a `CARDINAL_*`
/// variable named after the option.
extension DaemonCommand {
    /// `--max-batch-events` → `CARDINAL_MAX_BATCH_EVENTS`.
    static func environmentVariable(of name: String) -> String {
        "CARDINAL_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A whole number of at least `minimum` (1 unless said), with its default.
    static func count(
        _ name: String, _ help: String, _ value: Int, valueName: String = "n", atLeast minimum: Int = 1
    ) -> RequiredOption<Int> {
        RequiredOption(name, help: help, valueName: valueName, default: String(value),
                       environment: environmentVariable(of: name), parser: .integer(atLeast: minimum))
    }

    /// A duration such as `250ms`, `30s`, `5m` or `1h`, with its default.
    static func duration(_ name: String, _ help: String, _ value: Duration) -> RequiredOption<Duration> {
        RequiredOption(name, help: help, valueName: "duration", default: text(value),
                       environment: environmentVariable(of: name), parser: .duration)
    }

    /// `250ms`, `30s`, `5m` or `1h`: the largest unit that states `duration` exactly, as `--help` shows it.
    static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)] where milliseconds % size == 0 && milliseconds > 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
