/// The installation-specific bounds of event validation.
///
/// The defaults are those of DESIGN.md; an installation that keeps data longer or accepts larger
/// properties passes its own values from configuration.
public struct ValidationPolicy: Sendable, Equatable {
    /// How many days of events the installation keeps: an event older than this, relative to the time the
    /// request was received, is rejected (`time_too_old`) because its partition would already be dropped.
    public var retentionDays: Int
    /// How far after the time of receipt an event's `time` may be (`time_in_future` beyond it); clients'
    /// clocks are wrong, but not by days.
    public var maxFutureSkew: Duration
    /// The largest allowed size of `properties` in bytes of compact JSON (`properties_too_large` beyond it).
    public var maxPropertiesBytes: Int

    /// The largest retention window and future skew, in days.
    private static let century = 36_500

    /// The retention windows a policy accepts: a day to a century. Callers check configuration against it.
    public static let retentionDaysRange = 1...century

    /// The retention window as a duration (`retentionDays` whole days of 86 400 s).
    public var retention: Duration {
        .seconds(Int64(retentionDays) * 86_400)
    }

    /// Creates a policy; every bound defaults to the value in ``Limits``.
    ///
    /// - Parameters:
    ///   - retentionDays: Days of events kept, 1 to 36 500 (a century).
    ///   - maxFutureSkew: The allowed lead of event time over receipt time, zero to a century.
    ///   - maxPropertiesBytes: The byte limit of `properties`; must not be negative.
    /// - Precondition: The bounds above hold; configuration is checked by the caller before it gets here,
    ///   so that time arithmetic in microseconds cannot overflow.
    public init(
        retentionDays: Int = Limits.defaultRetentionDays,
        maxFutureSkew: Duration = .seconds(Limits.defaultMaxFutureSkewSeconds),
        maxPropertiesBytes: Int = Limits.defaultMaxPropertiesBytes
    ) {
        precondition(Self.retentionDaysRange.contains(retentionDays), "retentionDays must be in \(Self.retentionDaysRange)")
        precondition(
            (.zero ... .seconds(Int64(Self.century) * 86_400)).contains(maxFutureSkew),
            "maxFutureSkew must be between zero and \(Self.century) days")
        precondition(maxPropertiesBytes >= 0, "maxPropertiesBytes must not be negative")
        self.retentionDays = retentionDays
        self.maxFutureSkew = maxFutureSkew
        self.maxPropertiesBytes = maxPropertiesBytes
    }
}
