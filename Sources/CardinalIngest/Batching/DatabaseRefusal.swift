import CardinalCore

/// Why the database refused a batch's data: the code and message each event found at fault is rejected with.
///
/// The message names the SQLSTATE and the constraint, never the server's DETAIL, which quotes row data.
struct DatabaseRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The rejection code of an event refused for this reason.
    var code: RejectionCode
    /// The rejection message, safe for the client and the log.
    var message: String

    var description: String { "\(code.rawValue): \(message)" }
}
