public import Foundation

/// An app that sends events to Cardinal. Each ingest key belongs to exactly one app.
public struct App: Sendable, Equatable {
    /// The database identifier, stored on every event.
    public let id: Int64
    /// The unique name operators use on the command line.
    public let name: String
    /// The IANA time zone of the app's report day (campaign settings may override it).
    public let reportTimeZone: String
    /// When the app was created.
    public let createdAt: Date
}
