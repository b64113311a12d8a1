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

    /// `value` as a logfmt value: bare when it is safe, else in double quotes with `\\`, `"`, `\n`, `\r` and `\t`
    /// escaped and every other control character (C0, DEL, C1, U+2028/U+2029) as `\u{…}`, so that no value can
    /// end a line or forge another one, nor send escape sequences to a terminal.
    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty
            || value.unicodeScalars.contains { $0 == " " || $0 == "=" || $0 == "\"" || isControl($0) }
        guard needsQuotes else {
            return value
        }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isControl(scalar): escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
