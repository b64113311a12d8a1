import Foundation
public import PostgresClient

/// Creates, lists and finds apps in `cardinal.apps`.
public struct AppStore {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Creates an app.
    /// - Throws: `StoreError.appExists` when the name is taken, `StoreError.invalidTimeZone` for an unknown zone.
    public func create(name: String, reportTimeZone: String = "UTC") throws -> App {
        guard try isKnownTimeZone(reportTimeZone) else {
            throw StoreError.invalidTimeZone(reportTimeZone)
        }
        do {
            let rows = try connection.query(
                """
                insert into cardinal.apps (name, report_time_zone) values (\(name), \(reportTimeZone))
                returning \(App.sqlColumns.selectList)
                """
            )
            return try Self.app(from: rows[0])
        } catch let error as PostgresError where error.sqlState == .uniqueViolation {
            throw StoreError.appExists(name)
        }
    }

    /// Every app, by name.
    public func list() throws -> [App] {
        let columns = App.sqlColumns
        return try connection.query(
            "select \(columns.selectList) from \(columns.objectName) order by \(identifier: columns["name"])"
        ).map(Self.app(from:))
    }

    /// The app called `name`.
    /// - Throws: `StoreError.appNotFound` when there is none.
    public func find(name: String) throws -> App {
        let columns = App.sqlColumns
        let rows = try connection.query(
            "select \(columns.selectList) from \(columns.objectName) where \(identifier: columns["name"]) = \(name)"
        )
        guard let row = rows.first else {
            throw StoreError.appNotFound(name)
        }
        return try Self.app(from: row)
    }

    /// The rate limits set for `app` (none set: the daemon's defaults).
    public func rateLimits(of app: App) throws -> IngestRateLimits {
        let columns = IngestRateLimits.sqlColumns
        let rows = try connection.query(
            "select \(columns.selectList) from \(columns.objectName) where app_id = \(app.id)"
        )
        guard let row = rows.first else {
            return IngestRateLimits()
        }
        return try IngestRateLimits(row: row)
    }

    /// Sets the rate limits of `app`; limits with neither rate remove its row.
    /// - Throws: `PostgresError` (check violation) for a negative rate.
    public func setRateLimits(_ limits: IngestRateLimits, of app: App) throws {
        if limits == IngestRateLimits() {
            try connection.execute("delete from cardinal.ingest_rate_limits where app_id = \(app.id)")
            return
        }
        try connection.execute(
            """
            insert into cardinal.ingest_rate_limits (app_id, events_per_second, requests_per_second)
            values (\(app.id), \(limits.eventsPerSecond.map { Int32(clamping: $0) }),
                    \(limits.requestsPerSecond.map { Int32(clamping: $0) }))
            on conflict (app_id) do update
                set events_per_second = excluded.events_per_second,
                    requests_per_second = excluded.requests_per_second,
                    updated_at = now()
            """
        )
    }

    private func isKnownTimeZone(_ zone: String) throws -> Bool {
        try !connection.query("select 1 from pg_timezone_names where name = \(zone)").isEmpty
    }

    private static func app(from row: PostgresRow) throws -> App {
        let columns = App.sqlColumns
        return App(
            id: try row.decode(Int64.self, column: columns["app_id"]),
            name: try row.decode(String.self, column: columns["name"]),
            reportTimeZone: try row.decode(String.self, column: columns["report_time_zone"]),
            createdAt: try row.decode(Date.self, column: columns["created_at"])
        )
    }
}
