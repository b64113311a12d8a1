import Foundation
import PostgresClient
import Testing

/// ``PostgresQuery`` against the server: every codable type bound by interpolation comes back as itself, and a
/// value that looks like SQL stays data.
@Suite("Interpolated query round trips")
struct PostgresQueryRoundTripTests {
    @Test("A value of each codable type, bound by interpolation, comes back as itself")
    func everyCodableType() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let date = Date(timeIntervalSince1970: 1_764_461_432.123456)
        let uuid = UUID()
        let decimal = Decimal(string: "-12.345", locale: Locale(identifier: "en_US_POSIX"))!
        let json = PostgresJSON(text: #"{"a": [1, "b"]}"#)
        let row = try #require(connection.query(
            """
            select \("text ✓")::text as text, \(Int.max)::bigint as int, \(Int64.min)::bigint as int64,
                   \(Int32.max)::integer as int32, \(Int16.min)::smallint as int16, \(0.1)::double precision as double,
                   \(Float(2.5))::real as float, \(true)::boolean as bool, \(decimal)::numeric as decimal,
                   \(date)::timestamptz as date, \(uuid)::uuid as uuid, \(Data([0, 1, 255]))::bytea as data,
                   \([UInt8]([9, 8]))::bytea as bytes, \(json)::jsonb as json, \(nil as String?)::text as null_text
            """
        ).first)
        #expect(try row.decode(String.self, column: "text") == "text ✓")
        #expect(try row.decode(Int.self, column: "int") == Int.max)
        #expect(try row.decode(Int64.self, column: "int64") == Int64.min)
        #expect(try row.decode(Int32.self, column: "int32") == Int32.max)
        #expect(try row.decode(Int16.self, column: "int16") == Int16.min)
        #expect(try row.decode(Double.self, column: "double") == 0.1)
        #expect(try row.decode(Float.self, column: "float") == 2.5)
        #expect(try row.decode(Bool.self, column: "bool") == true)
        #expect(try row.decode(Decimal.self, column: "decimal") == decimal)
        #expect(try row.decode(Date.self, column: "date") == date)
        #expect(try row.decode(UUID.self, column: "uuid") == uuid)
        #expect(try row.decode(Data.self, column: "data") == Data([0, 1, 255]))
        #expect(try row.decode([UInt8].self, column: "bytes") == [9, 8])
        #expect(try row.decode(PostgresJSON.self, column: "json").decode([String: [JSONScalar]].self)
            == ["a": [.number(1), .text("b")]])
        #expect(try row.decode(String?.self, column: "null_text") == nil)
    }

    @Test("A String that looks like SQL is stored and read back as data, and the table survives")
    func injectionIsData() throws {
        try TestSchema.with { schema in
            let connection = try PostgresConnection(connectionString: schema.connectionString)
            try connection.execute("create table notes (body text not null)")
            let hostile = "x'); drop table notes; --"
            #expect(try connection.execute("insert into notes (body) values (\(hostile))") == 1)
            let fragment: PostgresQuery = "body = \(hostile)"
            let rows = try connection.query("select body from \(identifier: schema.name, "notes") where \(fragment)")
            #expect(try rows.map { try $0.decode(String.self, column: "body") } == [hostile])
            #expect(try connection.query("select count(*) as notes from notes")[0].decode(Int.self, column: "notes") == 1)
        }
    }

    @Test("execute returns the affected rows and query the rows of a statement built from fragments")
    func executeAndNested() throws {
        try TestSchema.with { schema in
            let connection = try PostgresConnection(connectionString: schema.connectionString)
            try connection.execute("create table items (id integer, label text)")
            let values: [PostgresQuery] = [1, 2, 3].map { "(\($0), \("item \($0)"))" }
            #expect(try connection.execute("insert into items (id, label) values \(values.joined(separator: ", "))") == 3)
            let rows = try connection.query("select label from items where id > \(1) and label <> \("item 3") order by id")
            #expect(try rows.map { try $0.decode(String.self, column: "label") } == ["item 2"])
        }
    }
}

/// A JSON array element of the round-trip test: a number or a string.
private enum JSONScalar: Decodable, Equatable {
    case number(Double)
    case text(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }
}
