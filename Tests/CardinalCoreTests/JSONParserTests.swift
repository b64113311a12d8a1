import Testing
@testable import CardinalCore

@Suite struct JSONParserTests {
    @Test("Numbers keep their exact text and booleans stay distinct from numbers")
    func exactScalars() throws {
        let value = try JSONValue.parse(#"[19.99, 1, true, 1.0e-3, -0, 12345678901234567890123]"#)
        #expect(value == .array([.number("19.99"), .number("1"), .bool(true), .number("1.0e-3"), .number("-0"),
                                 .number("12345678901234567890123")]))
    }

    @Test("Objects keep member order and repeated keys")
    func memberOrder() throws {
        let value = try JSONValue.parse(#"{"b":1,"a":2,"b":3}"#)
        guard case .object(let object) = value else {
            Issue.record("expected an object, got \(value)")
            return
        }
        #expect(object.members.map(\.key) == ["b", "a", "b"])
        #expect(object["b"] == .number("1"))
        #expect(object["missing"] == nil)
    }

    @Test("String escapes decode, surrogate pairs included")
    func escapes() throws {
        let value = try JSONValue.parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude42""#)
        #expect(value == .string("a\"b\\c/d\u{8}\u{C}\n\r\té🙂"))
    }

    @Test("Raw UTF-8 in strings is kept")
    func rawUTF8() throws {
        #expect(try JSONValue.parse(#""héllo 🙂""#) == .string("héllo 🙂"))
    }

    @Test("Invalid JSON is refused with the offset of the problem",
          arguments: [("", 0), ("{", 1), (#"{"a":1,}"#, 7), ("[1 2]", 3), ("01", 1), ("1.", 2), ("-", 1), ("1e", 2),
                      ("tru", 0), (#""\x""#, 1), (#""\ud800""#, 1), (#""\udc00""#, 1), ("\"a\nb\"", 2),
                      (#"{"a"}"#, 4), ("nul", 0), ("[1]]", 3), ("'a'", 0), (#""abc"#, 0)])
    func invalid(text: String, offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        do {
            _ = try JSONValue.parse(text)
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test("Invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
    }

    @Test("Nesting is limited so a hostile body cannot exhaust the stack")
    func depthLimit() throws {
        let deepest = String(repeating: "[", count: Limits.maxJSONDepth) + String(repeating: "]", count: Limits.maxJSONDepth)
        #expect(throws: Never.self) { try JSONValue.parse(deepest) }
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONParseError.self) { try JSONValue.parse(tooDeep) }
    }

    @Test("Compact text drops whitespace, escapes only what JSON requires and round-trips")
    func compactText() throws {
        let text = "{ \"a\" : [ 1 , 2.50 , \"q\\\"\\\\\\n\\u0001é/\" ] , \"b\" : { } , \"c\" : null }"
        let value = try JSONValue.parse(text)
        #expect(value.compactText == #"{"a":[1,2.50,"q\"\\\n\u0001é/"],"b":{},"c":null}"#)
        #expect(try JSONValue.parse(value.compactText) == value)
    }

    @Test("Type descriptions read as English for messages")
    func typeDescriptions() {
        #expect(JSONValue.null.typeDescription == "null")
        #expect(JSONValue.object(JSONObject()).typeDescription == "an object")
        #expect(JSONValue.number("1").typeDescription == "a number")
    }
}
