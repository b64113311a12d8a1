import PostgresClient
import Testing

/// How an interpolated ``PostgresQuery`` numbers its placeholders and collects its binds, without a server.
@Suite struct PostgresQueryTests {
    /// The binds as the text the server receives; nil for NULL.
    private func texts(_ query: PostgresQuery) -> [String?] {
        query.binds.map { $0?.postgresText }
    }

    @Test("A literal without interpolation is SQL text and binds nothing")
    func literalIsText() {
        let query: PostgresQuery = "select 1 where 'a' = 'a'"
        #expect(query.sql == "select 1 where 'a' = 'a'")
        #expect(query.binds.isEmpty)
    }

    @Test("Each interpolated value becomes the next placeholder, in order")
    func numbersPlaceholders() {
        let appID: Int64 = 7
        let name = "shop"
        let query: PostgresQuery = "select * from cardinal.apps where app_id = \(appID) and name = \(name) or app_id = \(appID)"
        #expect(query.sql == "select * from cardinal.apps where app_id = $1 and name = $2 or app_id = $3")
        #expect(texts(query) == ["7", "shop", "7"])
    }

    @Test("An interpolated String is bound as data, never spliced into the SQL")
    func stringIsBound() {
        let hostile = "x'; drop table cardinal.apps; --"
        let query: PostgresQuery = "select \(hostile)"
        #expect(query.sql == "select $1")
        #expect(texts(query) == [hostile])
    }

    @Test("nil, a nil optional and an optional with a value bind NULL, NULL and the value")
    func nilBindsNull() {
        let missing: String? = nil
        let present: Int? = 3
        let query: PostgresQuery = "select \(nil as Int?), \(missing), \(present)"
        #expect(query.sql == "select $1, $2, $3")
        #expect(texts(query) == [nil, nil, "3"])
    }

    @Test("A nested query's placeholders are renumbered after the binds before it")
    func nestedRenumbered() {
        let filter: PostgresQuery = "app_id = \(Int64(1)) and campaign_id = \("c1")"
        let query: PostgresQuery = "select \(true) from cardinal.events where \(filter) and type = \("click")"
        #expect(query.sql == "select $1 from cardinal.events where app_id = $2 and campaign_id = $3 and type = $4")
        #expect(texts(query) == ["t", "1", "c1", "click"])
    }

    @Test("A nested query used twice binds its values twice, each time with fresh numbers")
    func nestedTwice() {
        let day: PostgresQuery = "\("2026-01-01")::date"
        let query: PostgresQuery = "select \(day), \(day)"
        #expect(query.sql == "select $1::date, $2::date")
        #expect(texts(query) == ["2026-01-01", "2026-01-01"])
    }

    @Test("Identifiers are double-quoted, qualified parts joined by dots, quotes doubled")
    func identifiers() {
        let query: PostgresQuery = """
            select \(identifiers: ["app_id", "name"]) from \(identifier: "cardinal", "apps") as \(identifier: "we\"ird")
            """
        #expect(query.sql == #"select "app_id", "name" from "cardinal"."apps" as "we""ird""#)
        #expect(query.binds.isEmpty)
    }

    @Test("Joined fragments keep their binds in order with a literal separator between them")
    func joined() {
        let fragments: [PostgresQuery] = ["a = \(1)", "b = \(2)", "c is null"]
        let query: PostgresQuery = "select * from t where \(fragments.joined(separator: " and "))"
        #expect(query.sql == "select * from t where a = $1 and b = $2 and c is null")
        #expect(texts(query) == ["1", "2"])
        #expect([PostgresQuery]().joined(separator: ", ").sql.isEmpty)
    }

    @Test("A query appended to another is renumbered after it")
    func append() {
        var query: PostgresQuery = "select \(1)"
        query.append(" where x = \(2)")
        #expect(query.sql == "select $1 where x = $2")
        #expect(query.description == query.sql)
    }
}
