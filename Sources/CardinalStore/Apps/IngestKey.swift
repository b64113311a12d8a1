public import Foundation

/// An ingest key as listed: its public id and state. The secret itself is never stored or listed.
public struct IngestKey: Sendable, Equatable {
    /// The public identifier (`ck_` and 12 characters), also embedded in the secret token so a leaked token can be traced.
    public let id: String
    /// The app the key belongs to.
    public let appID: Int64
    /// A free-form note saying where the key is used.
    public let description: String?
    /// When the key was created.
    public let createdAt: Date
    /// When the key was revoked, or `nil` while it works.
    public let revokedAt: Date?
}
