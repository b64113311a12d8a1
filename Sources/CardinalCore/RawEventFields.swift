/// The top-level members of one event, sorted into named fields, before any rule is checked.
///
/// A stored struct rather than a dictionary: the validator looks every field up once per event, and a
/// `switch` over ``EventField`` costs less than hashing its name again.
struct RawEventFields {
    var id: JSONValue?
    var type: JSONValue?
    var channel: JSONValue?
    var time: JSONValue?
    var userID: JSONValue?
    var deviceID: JSONValue?
    var sessionID: JSONValue?
    var campaignID: JSONValue?
    var canvasID: JSONValue?
    var canvasStepID: JSONValue?
    var variantID: JSONValue?
    var control: JSONValue?
    var messageID: JSONValue?
    var placementID: JSONValue?
    var buttonID: JSONValue?
    var url: JSONValue?
    var platform: JSONValue?
    var sdkVersion: JSONValue?
    var appVersion: JSONValue?
    var osVersion: JSONValue?
    var test: JSONValue?
    var name: JSONValue?
    var value: JSONValue?
    var currency: JSONValue?
    var productID: JSONValue?
    var price: JSONValue?
    var quantity: JSONValue?
    var orderID: JSONValue?
    var properties: JSONValue?

    /// Sorts `object`'s members into fields.
    /// - Returns: The fields, or the first member whose name is not a field or repeats an earlier one.
    static func sort(_ object: JSONObject) -> Result<RawEventFields, SortFailure> {
        var fields = RawEventFields()
        for member in object.members {
            guard let field = EventField(wireName: member.key) else { return .failure(.unknown(member.key)) }
            guard fields[field] == nil else { return .failure(.duplicate(field)) }
            fields[field] = member.value
        }
        return .success(fields)
    }

    /// Why an object's members could not be sorted into fields.
    enum SortFailure: Error {
        /// A member name that is not an ``EventField``.
        case unknown(String)
        /// A field given twice.
        case duplicate(EventField)
    }

    /// The value of `field` as received (`.null` included), or `nil` when the member was absent.
    subscript(field: EventField) -> JSONValue? {
        get {
            switch field {
            case .id: id
            case .type: type
            case .channel: channel
            case .time: time
            case .userID: userID
            case .deviceID: deviceID
            case .sessionID: sessionID
            case .campaignID: campaignID
            case .canvasID: canvasID
            case .canvasStepID: canvasStepID
            case .variantID: variantID
            case .control: control
            case .messageID: messageID
            case .placementID: placementID
            case .buttonID: buttonID
            case .url: url
            case .platform: platform
            case .sdkVersion: sdkVersion
            case .appVersion: appVersion
            case .osVersion: osVersion
            case .test: test
            case .name: name
            case .value: value
            case .currency: currency
            case .productID: productID
            case .price: price
            case .quantity: quantity
            case .orderID: orderID
            case .properties: properties
            }
        }
        set {
            switch field {
            case .id: id = newValue
            case .type: type = newValue
            case .channel: channel = newValue
            case .time: time = newValue
            case .userID: userID = newValue
            case .deviceID: deviceID = newValue
            case .sessionID: sessionID = newValue
            case .campaignID: campaignID = newValue
            case .canvasID: canvasID = newValue
            case .canvasStepID: canvasStepID = newValue
            case .variantID: variantID = newValue
            case .control: control = newValue
            case .messageID: messageID = newValue
            case .placementID: placementID = newValue
            case .buttonID: buttonID = newValue
            case .url: url = newValue
            case .platform: platform = newValue
            case .sdkVersion: sdkVersion = newValue
            case .appVersion: appVersion = newValue
            case .osVersion: osVersion = newValue
            case .test: test = newValue
            case .name: name = newValue
            case .value: value = newValue
            case .currency: currency = newValue
            case .productID: productID = newValue
            case .price: price = newValue
            case .quantity: quantity = newValue
            case .orderID: orderID = newValue
            case .properties: properties = newValue
            }
        }
    }
}
