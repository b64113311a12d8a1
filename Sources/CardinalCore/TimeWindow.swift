import Foundation

/// The range of event times a request accepts, fixed once per request from its receipt time.
///
/// All bounds are integer microseconds since the Unix epoch, so boundary checks are exact: an event exactly
/// `maxFutureSkew` ahead, or exactly `retentionDays` old, is accepted; a microsecond more is not.
struct TimeWindow {
    /// The receipt time of the request.
    let now: Int64
    /// The oldest accepted event time.
    let earliest: Int64
    /// The newest accepted event time.
    let latest: Int64
    private let retentionDays: Int
    private let maxFutureSkew: Duration

    /// The latest epoch millisecond an RFC 3339 timestamp can name (9999-12-31T23:59:59.999Z); larger
    /// integers cannot be meant as times.
    private static let maxEpochMilliseconds: Int64 = 253_402_300_799_999

    init(now: Date, policy: ValidationPolicy) {
        self.now = EpochTime.microseconds(of: now)
        let skew = policy.maxFutureSkew.components
        latest = self.now + skew.seconds * 1_000_000 + skew.attoseconds / 1_000_000_000_000
        earliest = self.now - Int64(policy.retentionDays) * 86_400_000_000
        retentionDays = policy.retentionDays
        maxFutureSkew = policy.maxFutureSkew
    }

    /// Reads the required `time` field: an RFC 3339 string or an integer of epoch milliseconds, within the
    /// window.
    /// - Returns: The event time in microseconds since the Unix epoch.
    func eventTime(of fields: RawEventFields) throws(ValidationFailure) -> Int64 {
        guard let value = fields.present(.time) else { throw .missing(.time) }
        let micros: Int64
        let shown: String
        switch value {
        case .string(let text):
            guard !text.isEmpty else {
                throw ValidationFailure(code: .missingField, message: "field \"time\" is empty; it is required")
            }
            shown = ValidationFailure.quoted(text)
            guard let parsed = RFC3339.microseconds(from: text) else {
                throw ValidationFailure(
                    code: .invalidTime,
                    message: "field \"time\" is \(shown), not an RFC 3339 timestamp such as \"2025-03-01T12:00:00.123Z\"")
            }
            micros = parsed
        case .number(let text):
            shown = ValidationFailure.shownNumber(text)
            guard let milliseconds = Int64(text), milliseconds.magnitude <= Self.maxEpochMilliseconds.magnitude else {
                throw ValidationFailure(
                    code: .invalidTime,
                    message: "field \"time\" is \(shown); a number must be an integer of epoch milliseconds up to year 9999")
            }
            micros = milliseconds * 1000
        default:
            throw .wrongType(.time, expected: "an RFC 3339 string or an integer of epoch milliseconds", got: value)
        }
        try check(micros, shown: shown, isNumber: value.isNumber)
        return micros
    }

    private func check(_ micros: Int64, shown: String, isNumber: Bool) throws(ValidationFailure) {
        guard micros > latest || micros < earliest else { return }
        let received = RFC3339.string(microseconds: now)
        let understood = isNumber ? " (\(RFC3339.string(microseconds: micros)))" : ""
        if micros > latest {
            throw ValidationFailure(
                code: .timeInFuture,
                message: "field \"time\" is \(shown)\(understood), more than \(Self.describe(maxFutureSkew)) after "
                    + "the request was received at \(received)")
        }
        // Not after the window, so before it.
        var message = "field \"time\" is \(shown)\(understood), more than the retention window of \(retentionDays) "
            + "days before the request was received at \(received)"
        let asSeconds = micros.multipliedReportingOverflow(by: 1000)
        if isNumber, !asSeconds.overflow, (earliest...latest).contains(asSeconds.partialValue) {
            message += "; it looks like epoch seconds, but a numeric time is epoch milliseconds"
        }
        throw ValidationFailure(code: .timeTooOld, message: message)
    }

    /// A duration in whole hours when it is one (`24 h`), else in seconds.
    private static func describe(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        return seconds % 3600 == 0 ? "\(seconds / 3600) h" : "\(seconds) s"
    }
}

extension JSONValue {
    fileprivate var isNumber: Bool {
        if case .number = self { true } else { false }
    }
}
