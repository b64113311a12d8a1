import CardinalCore
import Foundation
public import PostgresClient

/// Creates, lists, revokes and resolves ingest keys in `cardinal.ingest_keys`.
///
/// Only the SHA-256 of a whole token is stored, and it is computed here (``IngestKeyStore/hash(of:)``), never
/// by the server: a token sent as a statement parameter would show in clear in the server's log under
/// `log_statement = all` (and in `pg_stat_activity`). The token exists in clear only in the answer to
/// `create` and in the requests of the app that uses it.
public struct IngestKeyStore {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Creates a key for `app`.
    /// - Returns: the key as listed and the token, which is shown once and cannot be recovered later.
    public func create(for app: App, description: String? = nil) throws -> (key: IngestKey, token: String) {
        let (keyID, token) = IngestKeyToken.generate()
        let rows = try connection.query(
            """
            insert into cardinal.ingest_keys (key_id, app_id, key_hash, description)
            values (\(keyID), \(app.id), \(Self.hash(of: token)), \(description))
            returning \(IngestKey.sqlColumns.selectList)
            """
        )
        return (try Self.key(from: rows[0]), token)
    }

    /// Every key of `app`, newest first, revoked ones included.
    public func list(for app: App) throws -> [IngestKey] {
        try connection.query(
            """
            select \(IngestKey.sqlColumns.selectList)
            from \(IngestKey.sqlColumns.objectName) where app_id = \(app.id) order by created_at desc, key_id
            """
        ).map(Self.key(from:))
    }

    /// Revokes a key; revoking a revoked key keeps its first revocation time.
    /// - Throws: `StoreError.keyNotFound` when no key has that id.
    @discardableResult
    public func revoke(keyID: String) throws -> IngestKey {
        let rows = try connection.query(
            """
            update cardinal.ingest_keys set revoked_at = coalesce(revoked_at, now()) where key_id = \(keyID)
            returning \(IngestKey.sqlColumns.selectList)
            """
        )
        guard let row = rows.first else {
            throw StoreError.keyNotFound(keyID)
        }
        return try Self.key(from: row)
    }

    /// The app id a token belongs to, or `nil` when the token is unknown or revoked.
    public func resolve(token: String) throws -> Int64? {
        try lookup(token: token)?.appID
    }

    /// The app a token belongs to with its rate limits, or `nil` when the token is unknown or revoked: what
    /// the daemon asks per key, in one index lookup.
    public func lookup(token: String) throws -> IngestKeyLookup? {
        let limits = IngestRateLimits.sqlColumns
        let rows = try connection.query(
            """
            select k.app_id, \(identifier: "l", limits["events_per_second"]),
                   \(identifier: "l", limits["requests_per_second"])
            from cardinal.ingest_keys as k
            left join \(limits.objectName) as l on l.app_id = k.app_id
            where k.key_hash = \(Self.hash(of: token)) and k.revoked_at is null
            """
        )
        guard let row = rows.first else {
            return nil
        }
        return IngestKeyLookup(
            appID: try row.decode(Int64.self, column: "app_id"), rateLimits: try IngestRateLimits(row: row))
    }

    /// What `cardinal.ingest_keys.key_hash` holds for `token`: the SHA-256 of its UTF-8 bytes, the whole token
    /// (`cdl_<key id>_<secret>`) hashed.
    public static func hash(of token: String) -> [UInt8] {
        SHA256.hash(utf8: token)
    }

    private static func key(from row: PostgresRow) throws -> IngestKey {
        let columns = IngestKey.sqlColumns
        return IngestKey(
            id: try row.decode(String.self, column: columns["key_id"]),
            appID: try row.decode(Int64.self, column: columns["app_id"]),
            description: try row.decode(String?.self, column: columns["description"]),
            createdAt: try row.decode(Date.self, column: columns["created_at"]),
            revokedAt: try row.decode(Date?.self, column: columns["revoked_at"])
        )
    }
}
