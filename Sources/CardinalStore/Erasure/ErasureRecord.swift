public import Foundation

/// What one erasure removed, table by table: the audit row of `cardinal.erasures`, or for a dry run the
/// same counts with nothing removed and no row written.
public struct ErasureRecord: Sendable, Equatable {
    /// The audit row's id; `nil` for a dry run.
    public var erasureID: Int64?
    /// When the erasure ran; `nil` for a dry run.
    public var erasedAt: Date?
    /// The salted SHA-256 of the identity the audit row keeps instead of it (32 bytes).
    public var identityHash: [UInt8]
    /// Events deleted.
    public var events: Int64
    /// Rejected events deleted.
    public var rejectedEvents: Int64
    /// `report_user_state` rows deleted (every row of the affected users).
    public var reportUserState: Int64
    /// `report_session_state` rows deleted.
    public var reportSessionState: Int64
    /// `report_conversion_state` rows deleted.
    public var reportConversionState: Int64
    /// `report_daily_counts` rows reduced by the affected users' events (deleted when nothing is left).
    public var reportDailyCounts: Int64
    /// `report_fold_queue` rows of the affected users removed.
    public var reportFoldQueue: Int64
    /// `report_groups` left without state and deleted.
    public var reportGroups: Int64
    /// Events of other users of an erased device queued again to rebuild their state.
    public var requeuedEvents: Int64

    /// The names of ``countsByTable``: the count columns of `cardinal.erasures`, in order.
    public static let tableNames = [
        "events", "rejected_events", "report_user_state", "report_session_state", "report_conversion_state",
        "report_daily_counts", "report_fold_queue", "report_groups", "requeued_events",
    ]

    /// The counts by table name (``tableNames``), for listings.
    public var countsByTable: [(table: String, rows: Int64)] {
        Array(zip(Self.tableNames, [
            events, rejectedEvents, reportUserState, reportSessionState, reportConversionState, reportDailyCounts,
            reportFoldQueue, reportGroups, requeuedEvents,
        ]))
    }

    /// Creates a record from its counts.
    public init(
        erasureID: Int64?, erasedAt: Date?, identityHash: [UInt8], events: Int64, rejectedEvents: Int64,
        reportUserState: Int64, reportSessionState: Int64, reportConversionState: Int64, reportDailyCounts: Int64,
        reportFoldQueue: Int64, reportGroups: Int64, requeuedEvents: Int64
    ) {
        self.erasureID = erasureID
        self.erasedAt = erasedAt
        self.identityHash = identityHash
        self.events = events
        self.rejectedEvents = rejectedEvents
        self.reportUserState = reportUserState
        self.reportSessionState = reportSessionState
        self.reportConversionState = reportConversionState
        self.reportDailyCounts = reportDailyCounts
        self.reportFoldQueue = reportFoldQueue
        self.reportGroups = reportGroups
        self.requeuedEvents = requeuedEvents
    }
}
