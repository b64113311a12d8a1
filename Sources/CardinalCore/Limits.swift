/// The numeric limits of the ingest API, named so that validation, documentation and tests cite one source.
///
/// String lengths are counted in Unicode scalars (what PostgreSQL counts as characters).
public enum Limits {
    /// The longest `user_id`: "user ids < 512 chars" (DOMAIN.md).
    public static let userIDMaxLength = 511
    /// The longest id-like string: `device_id`, `session_id`, `campaign_id`, `canvas_id`, `canvas_step_id`,
    /// `variant_id`, `message_id`, `placement_id` and `button_id`.
    public static let identifierMaxLength = 255
    /// The longest `url`.
    public static let urlMaxLength = 2048
    /// The longest `sdk_version`, `app_version` or `os_version`.
    public static let versionMaxLength = 64
    /// The longest conversion `name` ("Event names ≤ 255 chars, no leading `$`", DOMAIN.md).
    public static let conversionNameMaxLength = 255
    /// The length of a `currency`: an ISO 4217 alphabetic code.
    public static let currencyCodeLength = 3
    /// The most significant digits of a `value`: what `Decimal` holds exactly.
    public static let valueMaxSignificantDigits = 38
    /// The decimal exponents a `value` may have once trailing zeros are removed: what `Decimal` holds.
    public static let valueExponentRange = -128...127
    /// The most fraction digits of an RFC 3339 `time` (nanoseconds; stored to the microsecond).
    public static let timeMaxFractionDigits = 9
    /// The default retention window in days (DESIGN.md: "keep 400 days").
    public static let defaultRetentionDays = 400
    /// The default allowed lead of event time over receipt time, in seconds (24 h).
    public static let defaultMaxFutureSkewSeconds: Int64 = 86_400
    /// The default byte limit of `properties` as compact JSON (16 KiB).
    public static let defaultMaxPropertiesBytes = 16_384
    /// The deepest nesting of arrays and objects accepted in a request body, so that a hostile body cannot
    /// exhaust the stack of the recursive parser.
    public static let maxJSONDepth = 100
    /// The largest decimal exponent magnitude of a number inside `properties`: PostgreSQL's `numeric` (and
    /// so `jsonb`) cannot hold much beyond it, and one unstorable event must not fail a whole batch.
    public static let propertiesNumberMaxExponent = 1000
}
