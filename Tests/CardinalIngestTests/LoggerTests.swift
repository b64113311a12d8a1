import Testing

@testable import CardinalIngest

@Suite struct LoggerTests {
    @Test("A value with a carriage return, line feed or other control character stays on one quoted line")
    func controlCharactersAreEscaped() {
        let value = "a\rlevel=error msg=forged\nb\tc\u{1B}[31m\u{7F}\u{85}\u{2028}d"
        let quoted = Logger.quoted(value)
        #expect(quoted == #""a\rlevel=error msg=forged\nb\tc\u{1b}[31m\u{7f}\u{85}\u{2028}d""#)
        #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test("Plain values stay bare; spaces, equals signs, quotes and backslashes inside quotes are escaped")
    func plainAndQuotedValues() {
        #expect(Logger.quoted("abc-123") == "abc-123")
        #expect(Logger.quoted("") == #""""#)
        #expect(Logger.quoted(#"a "b"=c\d"#) == #""a \"b\"=c\\d""#)
    }

    @Test("A lone carriage return forces quoting")
    func loneCarriageReturn() {
        #expect(Logger.quoted("x\ry") == #""x\ry""#)
    }
}
