import PostgresClient

/// A snapshot of the database that one report session exports and others read through
/// (`pg_export_snapshot`, `SET TRANSACTION SNAPSHOT`), so that the parts of one report computed on several
/// connections at once see the same events and settings, as one statement would.
///
/// - Warning: Valid only while the exporting session's ``ReportSession/sharingSnapshot(_:)`` body runs, and
///   only on the server that exported it: every session that reads it must connect to that server.
public struct ReportSnapshot: Sendable {
    /// The identifier `pg_export_snapshot()` returned, such as `00000003-0000001B-1`.
    let identifier: String

    /// Wraps an identifier that `pg_export_snapshot()` returned.
    /// - Throws: ``ReportDecodingError`` when it is not made of hexadecimal digits and dashes, as PostgreSQL's
    ///   are: it is spelled into `SET TRANSACTION SNAPSHOT`, which takes no parameter.
    init(identifier: String) throws {
        guard !identifier.isEmpty, identifier.unicodeScalars.allSatisfy({ $0 == "-" || $0.properties.isASCIIHexDigit })
        else {
            throw ReportDecodingError(
                what: "the snapshot pg_export_snapshot() exported", value: identifier,
                expected: "hexadecimal digits and dashes"
            )
        }
        self.identifier = identifier
    }
}

extension ReportSession {
    /// Runs `body` in a REPEATABLE READ transaction whose snapshot it exports, for other sessions to read
    /// through ``reading(_:_:)`` while `body` runs. The report calls that `body` makes on this session read the
    /// same snapshot, and the events not folded yet once (as ``inOneSnapshot(_:)``).
    /// - Throws: `PostgresError`, or what `body` throws.
    /// - Warning: The session must not be inside a transaction (transactions do not nest).
    public func sharingSnapshot<T>(_ body: (ReportSnapshot) throws -> T) throws -> T {
        try connection.transaction(isolation: .repeatableRead) { connection in
            let identifier = try connection.query("select pg_export_snapshot() as snapshot")[0]
                .decode(String.self, column: "snapshot")
            try takePendingCopy()
            return try body(try ReportSnapshot(identifier: identifier))
        }
    }

    /// Runs `body` in one REPEATABLE READ transaction in which the events not folded yet are read once
    /// (`cardinal.take_report_pending_copy`), so that every query of the report counts the same events and
    /// none reads them again; inside a transaction already (a part of a report that shares a snapshot), runs
    /// `body` in it.
    /// - Throws: `PostgresError`, or what `body` throws.
    public func inOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        guard !connection.isInTransaction else {
            return try body()
        }
        return try connection.transaction(isolation: .repeatableRead) { _ in
            try takePendingCopy()
            return try body()
        }
    }

    /// Copies the pending events once for this transaction's report queries; the function does nothing where it
    /// cannot (a hot standby, a role without TEMPORARY), and the queries then read the events themselves.
    private func takePendingCopy() throws {
        try connection.execute("select cardinal.take_report_pending_copy()")
    }

    /// Runs `body` with this session in a REPEATABLE READ transaction that reads `snapshot`.
    /// - Throws: `PostgresError` (`invalid snapshot identifier` once the exporting body has returned), or what
    ///   `body` throws.
    /// - Warning: The session must not be inside a transaction (transactions do not nest).
    public func reading<T>(_ snapshot: ReportSnapshot, _ body: (ReportSession) throws -> T) throws -> T {
        try connection.transaction(isolation: .repeatableRead) { connection in
            try connection.executeScript("set transaction snapshot '\(snapshot.identifier)'")
            try takePendingCopy()
            return try body(self)
        }
    }
}
