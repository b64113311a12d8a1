@_spi(PositionalParameters) import PostgresClient

/// What a panel's statement returned as the reader, with the type of each column (asked of PostgreSQL
/// through a temporary view of the same statement, as the reader has no right to create one).
struct PanelResult {
    /// Kinds of column, as Grafana's SQL datasource tells them apart.
    enum Kind: Equatable {
        case time
        case number
        case text
        case other(String)
    }

    let rows: PostgresRows
    let kinds: [String: Kind]

    /// Runs `statement` on `reader` and describes its columns with `admin`.
    init(statement: String, reader: PostgresConnection, admin: PostgresConnection) throws {
        rows = try reader.query(statement, [])
        try admin.executeScript("create temporary view panel_columns as \(statement)")
        defer { _ = try? admin.executeScript("drop view panel_columns") }
        let types = try admin.query("""
            select a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod)
            from pg_catalog.pg_attribute as a
            where a.attrelid = 'pg_temp.panel_columns'::regclass and a.attnum > 0 and not a.attisdropped
            """)
        var kinds: [String: Kind] = [:]
        for row in types {
            let type = try row.decode(String.self, at: 1)
            kinds[try row.decode(String.self, at: 0)] = switch type {
            case "timestamp with time zone", "timestamp without time zone": .time
            case "smallint", "integer", "bigint", "numeric", "real", "double precision": .number
            case "text", "character varying": .text
            default: .other(type)
            }
        }
        self.kinds = kinds
    }

    /// The columns of a kind.
    func columns(_ kind: Kind) -> [String] {
        rows.columns.filter { kinds[$0] == kind }
    }
}
