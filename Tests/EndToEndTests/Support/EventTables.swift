import Foundation
@_spi(PositionalParameters) import PostgresClient

/// Reads `cardinal.events` and `cardinal.rejected_events` the way an analyst would, with SQL.
struct EventTables {
    /// A row of `cardinal.rejected_events`.
    struct Rejection: Equatable {
        let appID: Int64
        let index: Int
        let eventID: String?
        let code: String
        let message: String
        let raw: String
        let requestID: String?
    }

    let connection: PostgresConnection

    init(connection: PostgresConnection) {
        self.connection = connection
        // Timestamps come back as text; UTC makes them comparable to what the tests sent.
        _ = try? connection.executeScript("set timezone = 'UTC'")
    }

    /// `count(*)` of the events table.
    func eventCount() throws -> Int {
        try connection.query("select count(*) from cardinal.events")[0].decode(Int.self, at: 0)
    }

    /// `count(distinct id)` of the events table.
    func distinctEventIDCount() throws -> Int {
        try connection.query("select count(distinct id) from cardinal.events")[0].decode(Int.self, at: 0)
    }

    /// Every stored event id.
    func storedIDs() throws -> Set<UUID> {
        Set(try connection.query("select id from cardinal.events").map { try $0.decode(UUID.self, at: 0) })
    }

    /// The ids that are stored more than once (none, if idempotency holds).
    func repeatedIDs() throws -> [UUID] {
        try connection.query("select id from cardinal.events group by id having count(*) > 1")
            .map { try $0.decode(UUID.self, at: 0) }
    }

    /// The stored row of event `id`, every column as PostgreSQL's text (NULL as nil).
    func row(id: UUID) throws -> [String: String?]? {
        let rows = try connection.query("select * from cardinal.events where id = $1", [id])
        guard rows.count == 1, let row = rows.first else {
            return nil
        }
        var columns: [String: String?] = [:]
        for (index, name) in row.columns.enumerated() {
            columns[name] = row[index]
        }
        return columns
    }

    /// Whether a SQL condition over the row of event `id` holds, e.g. `properties = $2::jsonb`.
    func eventMatches(id: UUID, _ condition: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> Bool {
        try connection.query("select (\(condition)) from cardinal.events where id = $1", [id] + parameters)
            .first?.decode(Bool?.self, at: 0) ?? false
    }

    /// The app id of the app called `name`.
    func appID(named name: String) throws -> Int64 {
        try connection.query("select app_id from cardinal.apps where name = $1", [name])[0].decode(Int64.self, at: 0)
    }

    /// Every rejected event, in the order of their index.
    func rejections() throws -> [Rejection] {
        try connection.query(
            """
            select app_id, event_index, event_id, code, message, raw, request_id
            from cardinal.rejected_events order by event_index, rejection_id
            """
        ).map { row in
            Rejection(
                appID: try row.decode(Int64.self, at: 0), index: try row.decode(Int.self, at: 1),
                eventID: try row.decode(String?.self, at: 2), code: try row.decode(String.self, at: 3),
                message: try row.decode(String.self, at: 4), raw: try row.decode(String.self, at: 5),
                requestID: try row.decode(String?.self, at: 6))
        }
    }
}
