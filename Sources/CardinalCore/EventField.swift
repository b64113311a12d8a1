/// The top-level fields of an ingest event, in the order of the API's field table.
///
/// Public so that documentation and other modules can list the contract from one place; the raw value is
/// the wire name.
public enum EventField: String, Sendable, CaseIterable {
    /// `id`: the idempotency key.
    case id
    /// `type`: see ``EventType``.
    case type
    /// `channel`: see ``Channel``.
    case channel
    /// `time`: RFC 3339 or epoch milliseconds.
    case time
    /// `user_id`.
    case userID = "user_id"
    /// `device_id`.
    case deviceID = "device_id"
    /// `session_id`.
    case sessionID = "session_id"
    /// `campaign_id`.
    case campaignID = "campaign_id"
    /// `canvas_id`.
    case canvasID = "canvas_id"
    /// `canvas_step_id`.
    case canvasStepID = "canvas_step_id"
    /// `variant_id`.
    case variantID = "variant_id"
    /// `control`.
    case control
    /// `message_id`.
    case messageID = "message_id"
    /// `placement_id`.
    case placementID = "placement_id"
    /// `button_id`.
    case buttonID = "button_id"
    /// `url`.
    case url
    /// `platform`: see ``Platform``.
    case platform
    /// `sdk_version`.
    case sdkVersion = "sdk_version"
    /// `app_version`.
    case appVersion = "app_version"
    /// `os_version`.
    case osVersion = "os_version"
    /// `test`.
    case test
    /// `name`: the conversion name.
    case name
    /// `value`: the conversion value.
    case value
    /// `currency`: the conversion currency.
    case currency
    /// `product_id`: the product a purchase is of.
    case productID = "product_id"
    /// `price`: a purchase's unit price; the value is price × quantity.
    case price
    /// `quantity`: the units a purchase is of.
    case quantity
    /// `order_id`: the order a conversion belongs to.
    case orderID = "order_id"
    /// `properties`: a free-form JSON object.
    case properties

    /// The field with this wire name, looked up among the few names of the same length.
    ///
    /// Used instead of `init(rawValue:)` for every member of every event: the synthesized initializer
    /// hashes the name into a cache, which an ad-hoc profile showed at 9% of batch decoding.
    init?(wireName name: String) {
        let length = name.utf8.count
        guard length < Self.byLength.count else { return nil }
        for field in Self.byLength[length] where field.rawValue == name {
            self = field
            return
        }
        return nil
    }

    /// The fields grouped by the UTF-8 length of their wire name, indexed by that length.
    private static let byLength: [[EventField]] = {
        let longest = allCases.map(\.rawValue.utf8.count).max() ?? 0
        var table = [[EventField]](repeating: [], count: longest + 1)
        for field in allCases {
            table[field.rawValue.utf8.count].append(field)
        }
        return table
    }()
}
