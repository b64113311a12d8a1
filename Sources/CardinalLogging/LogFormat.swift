import Foundation

/// How a log line is written: logfmt for people and `grep`, JSON for log collectors that parse lines.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `time=2026-11-30T12:00:00Z level=info msg="cardinald listening" http.address=127.0.0.1:8080`
    case logfmt
    /// `{"time":"2026-11-30T12:00:00Z","level":"info","msg":"cardinald listening","http.address":"…"}`
    case json

    /// One line, ending in a line feed, that no value can break or extend.
    ///
    /// - Parameters:
    ///   - time: When the event happened.
    ///   - level: Its severity.
    ///   - message: What happened, a short constant text (values go in `fields`).
    ///   - fields: The values, in order; a key given twice is written twice.
    func line(time: Date, level: Logger.Level, message: String, fields: [LogField]) -> String {
        let timestamp = time.formatted(.iso8601)
        switch self {
        case .logfmt:
            var line = "time=\(timestamp) level=\(level.name) msg=\(Self.logfmtValue(message))"
            for field in fields {
                line += " \(field.key)=\(Self.logfmtValue(field.value))"
            }
            return line + "\n"
        case .json:
            var line = "{\"time\":\"\(timestamp)\",\"level\":\"\(level.name)\",\"msg\":\(Self.jsonString(message))"
            for field in fields {
                line += ",\(Self.jsonString(field.key)):\(Self.jsonString(field.value))"
            }
            return line + "}\n"
        }
    }
}
