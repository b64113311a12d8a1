/// A strict, allocation-light recursive-descent JSON parser over UTF-8 bytes.
///
/// Written by hand instead of using `JSONSerialization` because ingest needs exact number text, booleans
/// that are not numbers and ordered members (see ``JSONValue``), and because it is the hot path: strings
/// without escapes are created straight from the input bytes.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0
    /// Values that may still be parsed: a few bytes of JSON become a value of tens of bytes, so a budget is
    /// what bounds the memory a hostile text can take.
    private let maxValues: Int
    private var remainingValues: Int
    private var streamed: StreamedArray?

    /// The array member of the root object whose elements go to `element` one by one instead of being kept.
    private struct StreamedArray {
        let member: String
        /// Called with each element; `false` stops the parse.
        let element: (JSONValue) -> Bool
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maxValues: Int) {
        self.bytes = bytes
        self.maxValues = maxValues
        remainingValues = maxValues
    }

    /// Parses exactly one JSON value, with optional surrounding whitespace, filling the whole buffer.
    /// - Parameter maxValues: the most values (scalars and containers) the text may hold.
    static func parseDocument(_ bytes: UnsafeBufferPointer<UInt8>, maxValues: Int = .max) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxValues: maxValues)
        return try parser.parseWholeDocument()
    }

    /// Parses a document as ``parseDocument(_:maxValues:)`` does, except that when the root is an object,
    /// the elements of its `member` array are handed to `element` as each is parsed, and not kept: the
    /// member's value in the result is an empty array. This is how a batch of many events is decoded in the
    /// memory of one event. `maxValues` then applies to each element, and to each other member, on its own.
    /// - Throws: ``JSONParseError``, also when `element` returns `false` (the reason then says so).
    static func parseDocument(
        _ bytes: UnsafeBufferPointer<UInt8>, streamingElementsOf member: String, maxValues: Int,
        element: (JSONValue) -> Bool
    ) throws(JSONParseError) -> JSONValue {
        try withoutActuallyEscaping(element) { element in
            var parser = JSONParser(bytes: bytes, maxValues: maxValues)
            parser.streamed = StreamedArray(member: member, element: element)
            return Result { () throws(JSONParseError) in try parser.parseWholeDocument() }
        }.get()
    }

    /// The reason of the error thrown when the element handler stops a streaming parse.
    static let stoppedReason = "stopped by the element handler"

    private mutating func parseWholeDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else {
            throw error("unexpected \(describeCurrent()) after the JSON value")
        }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        remainingValues -= 1
        if remainingValues < 0 {
            throw error("more than \(maxValues) values")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONObject {
        try enterContainer()
        position += 1
        var members: [JSONObject.Member] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return JSONObject(members: members)
        }
        members.reserveCapacity(16)
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key, got \(describeCurrent())") }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after an object key, got \(describeCurrent())") }
            position += 1
            skipWhitespace()
            if depth == 1, let streamed {
                remainingValues = maxValues
                let value = key == streamed.member && peek() == UInt8(ascii: "[")
                    ? try streamElements(to: streamed.element) : try parseValue()
                members.append(JSONObject.Member(key: key, value: value))
            } else {
                members.append(JSONObject.Member(key: key, value: try parseValue()))
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return JSONObject(members: members)
            default:
                throw error("expected ',' or '}' in an object, got \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> [JSONValue] {
        var elements: [JSONValue] = []
        try parseElements(budgetEach: false) { elements.append($0); return true }
        return elements
    }

    /// Parses the array at the current position, handing each element to `element`; returns an empty array.
    private mutating func streamElements(to element: (JSONValue) -> Bool) throws(JSONParseError) -> JSONValue {
        try parseElements(budgetEach: true, element)
        return .array([])
    }

    /// Parses the array at the current position, handing each element to `element` (`false` stops the parse);
    /// with `budgetEach`, each element gets the whole value budget.
    private mutating func parseElements(
        budgetEach: Bool, _ element: (JSONValue) -> Bool
    ) throws(JSONParseError) {
        try enterContainer()
        position += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        while true {
            if budgetEach {
                remainingValues = maxValues
            }
            guard element(try parseValue()) else { throw error(Self.stoppedReason) }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return
            default:
                throw error("expected ',' or ']' in an array, got \(describeCurrent())")
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        var nonASCII: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                if nonASCII & 0x80 == 0 {
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw JSONParseError(offset: start, reason: "a string is not valid UTF-8")
                }
                return string
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start)
            }
            if byte < 0x20 {
                throw error("a control character (U+00\(hex2(byte))) must be escaped inside a string")
            }
            nonASCII |= byte
            position += 1
        }
        throw JSONParseError(offset: start - 1, reason: "unterminated string")
    }

    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var utf8 = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw JSONParseError(offset: start, reason: "a string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                try appendEscape(to: &utf8)
            case 0..<0x20:
                throw error("a control character (U+00\(hex2(byte))) must be escaped inside a string")
            default:
                utf8.append(byte)
                position += 1
            }
        }
        throw JSONParseError(offset: start - 1, reason: "unterminated string")
    }

    /// Decodes the escape sequence at `position` (a backslash) and appends its UTF-8 encoding.
    private mutating func appendEscape(to utf8: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else { throw JSONParseError(offset: escapeStart, reason: "unterminated string") }
        let letter = bytes[position]
        position += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(letter)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek() == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError(offset: escapeStart, reason: "a high surrogate escape is not followed by a low one")
                }
                position += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONParseError(offset: escapeStart, reason: "a high surrogate escape is not followed by a low one")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONParseError(offset: escapeStart, reason: "a low surrogate escape without a high one")
            }
            // Surrogates were handled above, so every remaining value is a valid scalar.
            utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            throw JSONParseError(offset: escapeStart, reason: "invalid escape sequence")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error("expected 4 hexadecimal digits after \\u") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected 4 hexadecimal digits after \\u")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Parses a number by the RFC 8259 grammar, keeping its text: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        if peek() == UInt8(ascii: "0") {
            position += 1
        } else if skipDigits() == 0 {
            throw error("expected a digit in a number")
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            if skipDigits() == 0 { throw error("expected a digit after the decimal point") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            if skipDigits() == 0 { throw error("expected a digit in the exponent") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private mutating func skipDigits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position - start
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count,
              UnsafeBufferPointer(start: literal.utf8Start, count: count).elementsEqual(bytes[position..<position + count])
        else { throw error("unexpected \(describeCurrent()), expected a value") }
        position += count
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > Limits.maxJSONDepth {
            throw error("nesting deeper than \(Limits.maxJSONDepth) levels")
        }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private func describeCurrent() -> String {
        guard let byte = peek() else { return "end of input" }
        if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex2(byte))"
    }

    private func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: position, reason: reason)
    }
}
