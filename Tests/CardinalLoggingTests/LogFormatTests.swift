import Foundation
import Testing

@testable import CardinalLogging

@Suite struct LogFormatTests {
    private let noon = Date(timeIntervalSince1970: 1_796_040_000)

    @Test("A logfmt value with a carriage return, line feed or other control character stays on one quoted line")
    func controlCharactersAreEscaped() {
        let value = "a\rlevel=error msg=forged\nb\tc\u{1B}[31m\u{7F}\u{85}\u{2028}d"
        let quoted = LogFormat.logfmtValue(value)
        #expect(quoted == #""a\rlevel=error msg=forged\nb\tc\u{1b}[31m\u{7f}\u{85}\u{2028}d""#)
        #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test("Plain logfmt values stay bare; spaces, equals signs, quotes and backslashes inside quotes are escaped")
    func plainAndQuotedValues() {
        #expect(LogFormat.logfmtValue("abc-123") == "abc-123")
        #expect(LogFormat.logfmtValue("") == #""""#)
        #expect(LogFormat.logfmtValue(#"a "b"=c\d"#) == #""a \"b\"=c\\d""#)
    }

    @Test("A lone carriage return forces quoting")
    func loneCarriageReturn() {
        #expect(LogFormat.logfmtValue("x\ry") == #""x\ry""#)
    }

    @Test("A logfmt line has the time, level and message first, then the fields in order, and one line feed")
    func logfmtLine() {
        let line = LogFormat.logfmt.line(time: noon, level: .warning, message: "request refused",
                                         fields: [LogField("http.status", "429"), LogField("ingest.app", "shop 1")])
        #expect(line == #"time=2026-11-30T12:00:00Z level=warning msg="request refused" http.status=429 ingest.app="shop 1""#
                + "\n")
    }

    @Test("A JSON line is one object with the time, level and message first and every value a string")
    func jsonLine() throws {
        let line = LogFormat.json.line(time: noon, level: .info, message: "cardinald listening",
                                       fields: [LogField("http.address", "127.0.0.1:8080")])
        #expect(line == #"{"time":"2026-11-30T12:00:00Z","level":"info","msg":"cardinald listening","http.address":"127.0.0.1:8080"}"#
                + "\n")
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["http.address"] == "127.0.0.1:8080")
    }

    @Test("A JSON value with quotes, backslashes and control characters parses back to itself on one line")
    func jsonEscaping() throws {
        let value = "a\"b\\c\nd\u{1B}[31m\u{85}\u{2028}e"
        let line = LogFormat.json.line(time: noon, level: .error, message: value, fields: [])
        #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
        #expect(!line.dropLast().unicodeScalars.contains { LogFormat.isControl($0) })
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["msg"] == value)
    }
}
