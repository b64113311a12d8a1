public import Foundation

/// The rejected events of one app received before the retention cutoff.
public struct ExpiredRejections: Sendable, Equatable {
    /// The app (`apps.app_id`).
    public var appID: Int64
    /// How many.
    public var count: Int64
    /// When the oldest and the newest of them were received.
    public var oldest: Date
    /// See ``oldest``.
    public var newest: Date

    /// Creates a listing entry.
    public init(appID: Int64, count: Int64, oldest: Date, newest: Date) {
        self.appID = appID
        self.count = count
        self.oldest = oldest
        self.newest = newest
    }
}
