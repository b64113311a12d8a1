import PostgresClient
import Testing

@Suite("COPY FROM STDIN")
struct CopyTests {
    private struct Abort: Error {}

    /// Field values that need COPY's text escapes, or look like them.
    private static let awkwardFields: [String?] = [
        "plain", "tab\there", "new\nline", "carriage\rreturn", "back\\slash", "\\N", "\\.", "", nil, "emoji 🦜 漢字",
        "ends with backslash\\", "\r\n\t\\ all",
    ]

    private static func expectedRow(_ id: Int) -> (String?, String?) {
        let field = awkwardFields[id % awkwardFields.count]
        return (field.map { "\($0)#\(id)" }, id % 7 == 0 ? nil : String(id))
    }

    @Test("COPY of 100 000 rows stores every row, and fields needing escapes come back exactly")
    func copyManyRows() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table events (id int primary key, body text, note text)")
            let copied = try connection.copyIn("copy events (id, body, note) from stdin") { writer in
                for id in 0..<100_000 {
                    let (body, note) = Self.expectedRow(id)
                    try writer.writeRow([String(id), body, note])
                }
            }
            #expect(copied == 100_000)
            #expect(try connection.query("select count(*) from events").first?.decode(Int.self, at: 0) == 100_000)

            let rows = try connection.query("select id, body, note from events order by id")
            var mismatches = 0
            for row in rows {
                let id = try row.decode(Int.self, at: 0)
                let (body, note) = Self.expectedRow(id)
                if try row.decode(String?.self, at: 1) != body || row.decode(String?.self, at: 2) != note {
                    mismatches += 1
                }
            }
            #expect(rows.count == 100_000)
            #expect(mismatches == 0)
        }
    }

    @Test("A COPY aborted by a thrown error stores no rows, rethrows the error and leaves the connection usable")
    func abortedCopy() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table events (id int, body text)")
            #expect(throws: Abort.self) {
                try connection.copyIn("copy events from stdin") { writer in
                    for id in 0..<20_000 {
                        try writer.writeRow([String(id), "row \(id)"])
                    }
                    throw Abort()
                }
            }
            #expect(connection.isUsable)
            #expect(try connection.query("select count(*) from events").first?.decode(Int.self, at: 0) == 0)
        }
    }

    @Test("Malformed COPY data surfaces the server's error and leaves the connection usable")
    func malformedData() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table events (id int, body text)")
            let error = #expect(throws: PostgresError.self) {
                try connection.copyIn("copy events from stdin") { writer in
                    try writer.write(Array("1\tfine\nnot-a-number\tbad\n".utf8))
                }
            }
            #expect(error?.sqlState == .invalidTextRepresentation)
            #expect(connection.isUsable)
            #expect(try connection.query("select count(*) from events").first?.decode(Int.self, at: 0) == 0)
        }
    }

    @Test("copyIn refuses a statement that is not COPY FROM STDIN, and query refuses COPY, without wedging the connection")
    func wrongStatements() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table events (id int)")
            let notCopy = #expect(throws: PostgresError.self) { try connection.copyIn("select 1") { _ in } }
            #expect(notCopy?.code == .copyFailed)
            let copyIn = #expect(throws: PostgresError.self) { try connection.query("copy events from stdin") }
            #expect(copyIn?.code == .copyFailed)
            let copyOut = #expect(throws: PostgresError.self) {
                try connection.query("copy (select generate_series(1, 1000)) to stdout")
            }
            #expect(copyOut?.code == .copyFailed)
            #expect(connection.isUsable)
            #expect(try connection.query("select 42").first?.decode(Int.self, at: 0) == 42)
        }
    }
}
