import CPostgreSQL

/// Holds a connection's notice handler where libpq's C callback can reach it.
///
/// See [`PQsetNoticeReceiver`](https://www.postgresql.org/docs/15/libpq-notice-processing.html).
final class NoticeRelay {
    /// The Swift handler; nil drops notices (instead of libpq's default of printing them to stderr).
    var handler: (@Sendable (PostgresNotice) -> Void)?

    /// Makes this relay the notice receiver of `connection`.
    ///
    /// - Warning: the relay must outlive `connection`; ``PostgresConnection`` guarantees it by owning both.
    func install(on connection: OpaquePointer) {
        // OWNERSHIP: passed unretained; the PostgresConnection that owns `connection` also owns this relay.
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = PQsetNoticeReceiver(connection, { context, result in
            guard let context, let result else { return }
            // SAFETY: `context` is the relay passed above, alive as long as the connection (see install's
            // warning). libpq calls back synchronously on the thread running the statement, so the relay
            // is not used concurrently. `result` is owned by libpq for the duration of this call only.
            let relay = Unmanaged<NoticeRelay>.fromOpaque(context).takeUnretainedValue()
            relay.handler?(PostgresNotice(copying: result))
        }, context)
    }
}

extension PostgresNotice {
    /// Copies a notice out of the `PGresult` libpq passes to a notice receiver.
    init(copying result: OpaquePointer) {
        self.init(
            severity: DiagnosticField.severity.value(in: result) ?? "NOTICE",
            message: DiagnosticField.message.value(in: result) ?? "",
            sqlState: DiagnosticField.sqlState.value(in: result).map(SQLState.init(rawValue:))
        )
    }
}
