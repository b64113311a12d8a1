import CardinalStore
import Testing

/// ``SQLColumns/mismatches(against:)``: what the contract test says when SQL and Swift disagree, checked on
/// hand-built column lists, since a report function's OUT column cannot be renamed in a test database.
@Suite struct SQLColumnsComparisonTests {
    private let declared = SQLColumns(.function, "cardinal.send_arms", [
        SQLColumn("app_name", "text"), SQLColumn("control", "boolean"), SQLColumn("users", "bigint"),
    ])

    @Test("Columns that agree in name and type give no mismatch")
    func agreement() {
        let actual = [SQLColumn("app_name", "text"), SQLColumn("control", "boolean"), SQLColumn("users", "bigint")]
        #expect(declared.mismatches(against: actual) == [])
    }

    @Test("A column renamed in SQL is named twice: the new name undeclared, the old one missing")
    func renamedColumn() {
        let actual = [SQLColumn("app_name", "text"), SQLColumn("control", "boolean"), SQLColumn("user_count", "bigint")]
        #expect(declared.mismatches(against: actual) == [
            "cardinal.send_arms: column \"user_count\" in SQL is not declared in Swift",
            "cardinal.send_arms: Swift declares \"users\", SQL has no such column",
        ])
    }

    @Test("A column whose type changed in SQL names both types")
    func retypedColumn() {
        let actual = [SQLColumn("app_name", "text"), SQLColumn("control", "boolean"), SQLColumn("users", "integer")]
        #expect(declared.mismatches(against: actual) == [
            "cardinal.send_arms: column \"users\" is integer in SQL, Swift declares bigint"
        ])
    }

    @Test("Reordered columns are a mismatch only where Swift relies on the order")
    func reorderedColumns() {
        let actual = [SQLColumn("control", "boolean"), SQLColumn("app_name", "text"), SQLColumn("users", "bigint")]
        #expect(declared.mismatches(against: actual) == [])
        let ordered = SQLColumns(.function, "cardinal.send_arms", ordered: true, declared.columns)
        #expect(ordered.mismatches(against: actual) == [
            "cardinal.send_arms: columns are in the order control, app_name, users in SQL, "
                + "Swift declares app_name, control, users"
        ])
    }

    @Test("A declaration of the columns Swift reads from a table ignores the table's other columns")
    func partialDeclaration() {
        let keys = SQLColumns(.relation, "cardinal.ingest_keys", complete: false, [SQLColumn("key_id", "text")])
        #expect(keys.mismatches(against: [SQLColumn("key_id", "text"), SQLColumn("key_hash", "bytea")]) == [])
        #expect(keys.mismatches(against: [SQLColumn("key", "text"), SQLColumn("key_hash", "bytea")]) == [
            "cardinal.ingest_keys: Swift declares \"key_id\", SQL has no such column"
        ])
    }

    @Test("A declaration names only the columns it declares")
    func selectList() {
        #expect(declared.selectList.sql == "\"app_name\", \"control\", \"users\"")
        #expect(declared.objectName.sql == "\"cardinal\".\"send_arms\"")
        #expect(declared["users"] == "users")
    }
}
