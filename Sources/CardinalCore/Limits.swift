/// The numeric limits of the ingest API, named so that validation, documentation and tests cite one source.
///
/// String lengths are counted in Unicode scalars (what PostgreSQL counts as characters).
public enum Limits {
    /// The longest `user_id`: "user ids < 512 chars" (DOMAIN.md).
    public static let userIDMaxLength = 511
    /// The most UTF-8 bytes a user key can have: a `user_id` of ``userIDMaxLength`` scalars of 4 bytes each
    /// (an anonymous key, `device:` and a `device_id`, is shorter).
    public static let userKeyMaxBytes = 4 * userIDMaxLength
    /// The longest id-like string: `device_id`, `session_id`, `campaign_id`, `canvas_id`, `canvas_step_id`,
    /// `variant_id`, `message_id`, `placement_id` and `button_id`.
    public static let identifierMaxLength = 255
    /// The longest `url`.
    public static let urlMaxLength = 2048
    /// The longest `sdk_version`, `app_version` or `os_version`.
    public static let versionMaxLength = 64
    /// The longest conversion `name` ("Event names ≤ 255 chars, no leading `$`", DOMAIN.md).
    public static let conversionNameMaxLength = 255
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
    /// The most digits after the decimal point that a number inside `properties` may have once its exponent
    /// is applied (`1.5e-3` has 4): PostgreSQL's `numeric`, and so `jsonb`, holds no more (`NUMERIC_DSCALE_MAX`).
    public static let propertiesNumberMaxScale = 16_383
    /// The most digits before the decimal point that a number inside `properties` may have once its exponent
    /// is applied (`1e3` has 4): the most PostgreSQL's `numeric` holds (131 072).
    public static let propertiesNumberMaxIntegerDigits = 131_072
    /// The most UTF-8 bytes the text columns of one index entry of `cardinal.events` or of the report state
    /// may have together (the entries are listed in `EventValidator+IndexBudget.swift`). A B-tree entry holds
    /// at most 2704 bytes; the other 104 are left for what the budget does not count: fixed-size columns,
    /// headers and alignment, the short texts of `type` and `channel` in `events_campaign_idx`, and the app id,
    /// commas and `NULL`s of `report_rows.row_key` (about 90 bytes at most).
    public static let indexedTextMaxBytes = 2_600
    /// The most JSON values (scalars, arrays and objects) one event may hold. `properties` of at most
    /// ``defaultMaxPropertiesBytes`` hold about 8,200, the other fields a few dozen; the budget bounds the
    /// memory a hostile event takes while it is parsed (a 2-byte `0,` becomes a value of 20 bytes or more).
    public static let maxJSONValuesPerEvent = 10_000
    /// The most bytes of a rejected event kept as evidence (its `raw` text in `cardinal.rejected_events` and in
    /// memory): a valid event is far smaller, so only junk is cut, and one bad line cannot be stored as megabytes.
    public static let rejectedRawMaxBytes = 64 * 1024
}
