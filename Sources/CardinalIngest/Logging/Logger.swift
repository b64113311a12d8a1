import Foundation
import Synchronization

/// Writes one logfmt line per event worth logging to standard error:
/// `time=2026-11-30T12:00:00.123Z level=info msg="…" ingest.request_id=…`.
///
/// Never give it request bodies, keys, `Authorization` headers or connection strings with passwords.
public final class Logger: Sendable {
    /// How much to log.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// The name used in log lines and `--log-level`.
        public var name: String { String(describing: self) }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let minimumLevel: Level
    private let output = Mutex(FileHandle.standardError)

    /// Logs events at `minimumLevel` and above.
    public init(minimumLevel: Level) {
        self.minimumLevel = minimumLevel
    }

    /// Logs `message` with `fields` (keys should be prefixed: `ingest.`, `db.`, `http.`).
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard level >= minimumLevel else {
            return
        }
        var line = "time=\(Date.now.formatted(.iso8601)) level=\(level.name) msg=\(Self.quoted(message))"
        for (key, value) in fields {
            line += " \(key)=\(Self.quoted(value))"
        }
        line += "\n"
        output.withLock { $0.write(Data(line.utf8)) }
    }

    private static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0.isNewline }
        guard needsQuotes else {
            return value
        }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}
