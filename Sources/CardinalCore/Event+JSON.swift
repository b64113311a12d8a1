import Foundation

extension Event {
    /// The event as a compact JSON object of API field names, for the evidence of a rejection that happens
    /// after validation (the request's own text is not kept for valid events). Absent fields are left out;
    /// `time` is RFC 3339 with microseconds, `value` a decimal string.
    public var compactJSON: String {
        var members: [JSONObject.Member] = []
        func add(_ field: EventField, _ value: JSONValue?) {
            if let value { members.append(JSONObject.Member(key: field.rawValue, value: value)) }
        }
        func add(_ field: EventField, _ text: String?) {
            add(field, text.map(JSONValue.string))
        }
        add(.id, id.uuidString.lowercased())
        add(.type, type.rawValue)
        add(.channel, channel?.rawValue)
        add(.time, RFC3339.string(microseconds: EpochTime.microseconds(of: time)))
        add(.userID, userID)
        add(.deviceID, deviceID)
        add(.sessionID, sessionID)
        add(.campaignID, source?.campaignID)
        add(.canvasID, source?.canvasID)
        add(.canvasStepID, source?.canvasStepID)
        add(.variantID, variantID)
        add(.control, control ? JSONValue.bool(true) : nil)
        add(.messageID, messageID)
        add(.placementID, placementID)
        add(.buttonID, buttonID)
        add(.url, url)
        add(.platform, platform?.rawValue)
        add(.sdkVersion, sdkVersion)
        add(.appVersion, appVersion)
        add(.osVersion, osVersion)
        add(.test, test ? JSONValue.bool(true) : nil)
        add(.name, conversionName)
        // A purchase's value is its price × quantity: sent again, the two would be refused together.
        add(.value, price == nil ? value.map { "\($0)" } : nil)
        add(.currency, currency)
        add(.productID, productID)
        add(.price, price.map { "\($0)" })
        add(.quantity, quantity.map { JSONValue.number(String($0)) })
        add(.orderID, orderID)
        if let propertiesJSON, let properties = try? JSONValue.parse(propertiesJSON) {
            add(.properties, properties)
        }
        return JSONValue.object(JSONObject(members: members)).compactText
    }
}
