extension PostgresError {
    /// Whether no partition of a partitioned table accepts the row.
    ///
    /// PostgreSQL reports it with SQLSTATE `23514`, the code of a failed `CHECK` (`ExecFindPartition` in
    /// execPartition.c), but a failed `CHECK` names its constraint (`PG_DIAG_CONSTRAINT_NAME`) and a missing
    /// partition names none. The message is not compared: it is translated under `lc_messages`.
    public var isNoPartitionForRow: Bool {
        code == .server && sqlState == .noPartitionForRow && constraint == nil
    }

    /// Whether the server refused the data of the statement (see ``SQLState/isDataError``).
    public var isDataError: Bool {
        code == .server && sqlState?.isDataError == true
    }
}
