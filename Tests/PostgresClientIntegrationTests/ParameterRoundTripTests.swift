import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite("Parameter round trips")
struct ParameterRoundTripTests {
    /// Sends `value` as `$1::sqlType` and decodes what the server returns.
    private func roundTrip<T: PostgresEncodable & PostgresDecodable>(
        _ value: T, as sqlType: String, on connection: PostgresConnection
    ) throws -> T {
        try #require(connection.query("select $1::\(sqlType)", [value]).first).decode(T.self, at: 0)
    }

    @Test("Integers of every width round-trip at their extremes")
    func integers() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        for value in [Int.min, -1, 0, 1, Int.max] {
            #expect(try roundTrip(value, as: "bigint", on: connection) == value)
        }
        for value in [Int64.min, Int64.max] {
            #expect(try roundTrip(value, as: "bigint", on: connection) == value)
        }
        for value in [Int32.min, Int32.max] {
            #expect(try roundTrip(value, as: "integer", on: connection) == value)
        }
        for value in [Int16.min, Int16.max] {
            #expect(try roundTrip(value, as: "smallint", on: connection) == value)
        }
    }

    @Test("Floating-point values round-trip exactly, infinities and NaN included")
    func floatingPoint() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        for value in [0.1, -2.5e-300, 1e300, .pi, .infinity, -.infinity, .leastNonzeroMagnitude] {
            #expect(try roundTrip(value, as: "double precision", on: connection) == value)
        }
        #expect(try roundTrip(Double.nan, as: "double precision", on: connection).isNaN)
        for value: Float in [0.1, 3.4028235e38, -.infinity, .leastNormalMagnitude] {
            #expect(try roundTrip(value, as: "real", on: connection) == value)
        }
        #expect(try roundTrip(Float.nan, as: "real", on: connection).isNaN)
    }

    @Test("Decimal values round-trip through numeric exactly")
    func decimals() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let values = ["0", "-12.345", "0.000001", "12345678901234567890.123456789012345678", "1e30"]
            .map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! }
        for value in values {
            #expect(try roundTrip(value, as: "numeric", on: connection) == value)
        }
        #expect(try roundTrip(Decimal.nan, as: "numeric", on: connection).isNaN)
    }

    @Test("Booleans, UUIDs, strings and JSON round-trip")
    func scalars() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        #expect(try roundTrip(true, as: "boolean", on: connection) == true)
        #expect(try roundTrip(false, as: "boolean", on: connection) == false)
        let uuid = UUID()
        #expect(try roundTrip(uuid, as: "uuid", on: connection) == uuid)
        #expect(try roundTrip("it's \"quoted\" \\ $1", as: "text", on: connection) == "it's \"quoted\" \\ $1")
        #expect(try roundTrip("", as: "text", on: connection) == "")

        let json = PostgresJSON(text: #"{"b": [1, 2], "a": "x"}"#)
        #expect(try roundTrip(json, as: "json", on: connection) == json)
        let jsonb = try roundTrip(json, as: "jsonb", on: connection)
        #expect(try jsonb.decode([String: JSONValue].self) == json.decode([String: JSONValue].self))
    }

    @Test("Unicode text keeps every character, emoji and CJK included")
    func unicode() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let text = "Grüße 👋🏽 日本語の文字 한국어 中文 e\u{301} 𝄞"
        let row = try #require(connection.query("select $1::text, char_length($1::text)", [text]).first)
        #expect(try row.decode(String.self, at: 0) == text)
        #expect(try row.decode(Int.self, at: 1) == text.unicodeScalars.count)
    }

    @Test("Bytes round-trip through bytea as Data and as [UInt8]")
    func bytes() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let bytes: [UInt8] = Array(0...255) + [0, 0, 255]
        #expect(try roundTrip(bytes, as: "bytea", on: connection) == bytes)
        #expect(try roundTrip(Data(bytes), as: "bytea", on: connection) == Data(bytes))
        #expect(try roundTrip([UInt8](), as: "bytea", on: connection) == [])
    }

    @Test("A 5 MB text and a 1 MB bytea round-trip unchanged")
    func largeValues() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let pattern = "0123456789abcdef€日"
        let text = String(repeating: pattern, count: 5 * 1024 * 1024 / pattern.utf8.count)
        #expect(text.utf8.count >= 5_000_000)
        #expect(try roundTrip(text, as: "text", on: connection) == text)

        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<1024 * 1024).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        #expect(try roundTrip(bytes, as: "bytea", on: connection) == bytes)
    }

    @Test("A nil parameter is sent as NULL and decodes to nil")
    func nullParameters() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let missing: Int? = nil
        let row = try #require(connection.query(
            "select $1::bigint is null, $1::bigint, $2::text, $3::timestamptz, $4::bytea, $5::uuid",
            [missing, nil, nil, nil, nil]
        ).first)
        #expect(try row.decode(Bool.self, at: 0))
        #expect(try row.decode(Int?.self, at: 1) == nil)
        #expect(try row.decode(String?.self, at: 2) == nil)
        #expect(try row.decode(Date?.self, at: 3) == nil)
        #expect(try row.decode([UInt8]?.self, at: 4) == nil)
        #expect(try row.decode(UUID?.self, at: 5) == nil)
        #expect(row[1] == nil)
    }

    @Test("An optional parameter with a value is sent as that value")
    func optionalWithValue() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let present: Int? = 7
        let row = try #require(connection.query("select $1::int * 6", [present]).first)
        #expect(try row.decode(Int?.self, at: 0) == 42)
    }

    @Test("A parameter containing a NUL character is refused before it reaches the server")
    func nulCharacter() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let error = #expect(throws: PostgresError.self) { try connection.query("select $1::text, $2::text", ["ok", "a\u{0}b"]) }
        #expect(error?.sqlState == .characterNotInRepertoire)
        #expect(error?.message.contains("$2") == true)
        #expect(connection.isUsable)
    }
}

/// Any JSON value, to compare JSON documents by content.
private enum JSONValue: Codable, Equatable {
    case number(Double), string(String), array([JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        }
    }
}
