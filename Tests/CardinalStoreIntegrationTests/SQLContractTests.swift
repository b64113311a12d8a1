import CardinalStore
import PostgresClient
import Testing
import TestSupport

/// The contract between the SQL and the Swift that reads it: every function, view and table of
/// ``SQLColumns/all`` has, in a freshly migrated database, exactly the columns and types its Swift declaration
/// names. A column added, renamed, dropped or retyped on one side only fails here, naming the object and column.
@Suite struct SQLContractTests {
    @Test("Every function, view and table Swift reads has the columns and types Swift declares")
    func columnsMatch() throws {
        let database = try TestDatabase.migrated(prefix: "contract")
        defer { database.drop() }
        let connection = try database.connect()
        for declaration in SQLColumns.all {
            let actual = try Self.columns(of: declaration, in: connection)
            if actual.isEmpty {
                Issue.record("\(declaration.object): SQL has no such \(declaration.source) with columns")
            }
            for mismatch in declaration.mismatches(against: actual) {
                Issue.record("\(mismatch)")
            }
        }
    }

    @Test("The declarations cover every report function Swift runs, once each")
    func declarationsAreDistinct() {
        let objects = SQLColumns.all.map(\.object)
        #expect(Set(objects).count == objects.count)
        for report in ["unique_impressions", "anomalies", "control_arms", "control_arm_conversions", "control_arm_days",
                       "send_arms", "campaign_conversions"] {
            #expect(objects.contains("cardinal.\(report)"))
        }
    }

    /// The result columns PostgreSQL reports for the object: a function's OUT and TABLE parameters, the columns
    /// of the row type it returns, or the one column named after it of a scalar result; a relation's columns.
    /// Names and `format_type` types, in order.
    private static func columns(of declaration: SQLColumns, in connection: PostgresConnection) throws -> [SQLColumn] {
        let query: PostgresQuery = switch declaration.source {
        case .function:
            """
            select a.name::text as name, format_type(a.type, null) as type, a.position
            from pg_proc p
            cross join lateral unnest(p.proargnames, p.proallargtypes, p.proargmodes::text[])
                with ordinality as a (name, type, mode, position)
            where p.oid = \(declaration.object)::regproc and a.mode in ('o', 'b', 't')
            union all
            select c.attname::text, format_type(c.atttypid, c.atttypmod), c.attnum
            from pg_proc p
            join pg_type t on t.oid = p.prorettype
            join pg_attribute c on c.attrelid = t.typrelid
            where p.oid = \(declaration.object)::regproc and p.proallargtypes is null
              and c.attnum > 0 and not c.attisdropped
            union all
            select p.proname::text, format_type(p.prorettype, null), 1
            from pg_proc p
            join pg_type t on t.oid = p.prorettype
            where p.oid = \(declaration.object)::regproc and p.proallargtypes is null and t.typrelid = 0
            order by 3
            """
        case .relation:
            """
            select attname::text as name, format_type(atttypid, atttypmod) as type
            from pg_attribute
            where attrelid = \(declaration.object)::regclass and attnum > 0 and not attisdropped
            order by attnum
            """
        }
        return try connection.query(query).map {
            SQLColumn(try $0.decode(String.self, column: "name"), try $0.decode(String.self, column: "type"))
        }
    }
}
