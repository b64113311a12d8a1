import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite("Timestamps")
struct TimestampTests {
    /// A Date exactly `microseconds` after 1970-01-01 UTC, built the same way the client builds them.
    private func date(microsecondsSince1970 microseconds: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(microseconds - 978_307_200_000_000) / 1_000_000)
    }

    @Test("A Date round-trips at microsecond precision under a non-UTC session time zone")
    func microsecondRoundTrip() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("set timezone = 'Asia/Kathmandu'")
            try connection.execute("create table moments (id int primary key, at timestamptz not null)")
            let instants: [Int64] = [
                1_796_042_096_123_456,  // 2026-11-30 12:34:56.123456 UTC
                1_796_042_096_000_001,
                1_796_042_096_999_999,
                1_796_042_096_000_000,
                -1_000_000_000_000_001,  // 1938, before the zone's current offset
                0,
            ]
            for (id, microseconds) in instants.enumerated() {
                try connection.execute("insert into moments values ($1, $2)", [id, date(microsecondsSince1970: microseconds)])
            }
            let rows = try connection.query("select at, at::text from moments order by id")
            #expect(rows.count == instants.count)
            for (row, microseconds) in zip(rows, instants) {
                #expect(try row.decode(Date.self, at: 0) == date(microsecondsSince1970: microseconds))
            }
            #expect(rows.first?[1] == "2026-11-30 18:19:56.123456+05:45")
        }
    }

    // Far from 2001 a Date (a Double) cannot hold every microsecond, so these instants are whole seconds.
    @Test("Dates from distant eras round-trip under a zone with a seconds offset", arguments: [
        "Europe/Amsterdam", "America/St_Johns", "UTC",
    ])
    func distantEras(zone: String) throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        try connection.execute("select set_config('timezone', \(zone), false)")
        let instants: [Int64] = [
            -2_208_988_800_000_000,  // 1900-01-01 00:00:00 UTC (Amsterdam: +00:19:32)
            -62_135_596_800_000_000,  // 0001-01-01 00:00:00 UTC
            -62_198_755_201_000_000,  // 0003-12-31 23:59:59 BC
            253_402_300_799_000_000,  // 9999-12-31 23:59:59 UTC
        ]
        for microseconds in instants {
            let value = date(microsecondsSince1970: microseconds)
            let row = try #require(connection.query("select $1::timestamptz", [value]).first)
            #expect(try row.decode(Date.self, at: 0) == value, "\(row[0] ?? "NULL") in \(zone)")
        }
    }

    @Test("Every form of timestamptz text decodes to the right instant", arguments: [
        ("2026-11-30 12:34:56.123456+00", 1_796_042_096_123_456),
        ("2026-11-30 18:04:56.123456+05:30", 1_796_042_096_123_456),
        ("2026-11-30 04:34:56.1-08", 1_796_042_096_100_000),
        ("2026-11-30 12:34:56+00", 1_796_042_096_000_000),
        ("2026-11-30T12:34:56.000001Z", 1_796_042_096_000_001),
        ("1900-01-01 00:19:32+00:19:32", -2_208_988_800_000_000),
        ("0001-01-01 00:00:00+00", -62_135_596_800_000_000),
        ("0001-12-31 23:59:59.999999+00 BC", -62_135_596_800_000_001),
        ("10000-01-01 00:00:00+00", 253_402_300_800_000_000),
    ] as [(String, Int64)])
    func textForms(text: String, microseconds: Int64) throws {
        #expect(try Date(postgresText: text) == date(microsecondsSince1970: microseconds))
    }

    @Test("Dates are sent as ISO 8601 in UTC with six fractional digits")
    func encoding() {
        #expect(date(microsecondsSince1970: 1_796_042_096_000_042).postgresText == "2026-11-30T12:34:56.000042+00")
        #expect(date(microsecondsSince1970: -62_135_596_801_000_000).postgresText == "0001-12-31T23:59:59.000000+00 BC")
    }

    @Test("Infinite timestamps decode to the distant future and past")
    func infinity() throws {
        #expect(try Date(postgresText: "infinity") == .distantFuture)
        #expect(try Date(postgresText: "-infinity") == .distantPast)
    }

    @Test("A timestamp without time zone is refused with a message that says the offset is missing")
    func missingOffset() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let row = try #require(connection.query("select timestamp '2026-11-30 12:00:00' as local").first)
        let error = #expect(throws: PostgresError.self) { try row.decode(Date.self, column: "local") }
        #expect(error?.code == .decoding)
        #expect(error?.message.contains("time-zone offset") == true)
    }
}
