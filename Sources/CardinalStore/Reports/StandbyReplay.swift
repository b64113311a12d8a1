public import PostgresClient

/// How far a hot standby's replay is, for a report read there (`cardinal report …` against a standby: docs/
/// production-topology.md): the age of the last commit it replayed, and the WAL it received but has not replayed.
/// On a primary there is nothing to say.
public struct StandbyReplay: Sendable {
    /// Seconds since the last transaction replayed here committed on the primary (`nil`: none replayed since the
    /// standby started). On an idle primary this grows too, with nothing missing.
    public let lastReplayedCommitAgeSeconds: Double?
    /// WAL bytes received from the primary and not replayed yet: what the report cannot see although it is here.
    public let unreplayedBytes: Int64

    /// The replay state of the server behind `connection`, or `nil` when it is not in recovery (a primary).
    /// - Throws: `PostgresError`.
    public static func read(from connection: PostgresConnection) throws -> StandbyReplay? {
        let row = try connection.query(
            """
            select pg_is_in_recovery() as in_recovery,
                   extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())::double precision
                       as last_replayed_commit_age_seconds,
                   coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0)::bigint
                       as unreplayed_bytes
            """
        ).first
        guard let row, try row.decode(Bool.self, column: "in_recovery") else { return nil }
        return StandbyReplay(
            lastReplayedCommitAgeSeconds: try row.decode(Double?.self, column: "last_replayed_commit_age_seconds"),
            unreplayedBytes: max(0, try row.decode(Int64.self, column: "unreplayed_bytes"))
        )
    }
}
