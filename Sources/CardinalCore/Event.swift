public import Foundation

/// A validated engagement event: every field of the ingest API, typed.
///
/// ``EventValidator`` produces these from the wire; a value built by hand is not checked against the rules
/// of the ingest API. Optional wire fields that were absent (or `null`) are `nil`.
public struct Event: Sendable, Equatable {
    /// The client-made idempotency key (`id`): a retried event carries the same id and is stored once.
    public var id: UUID
    /// What happened (`type`).
    public var type: EventType
    /// The surface of the message (`channel`); `nil` exactly for conversions.
    public var channel: Channel?
    /// When it happened on the client (`time`), with microsecond precision (see ``EpochTime``).
    public var time: Date
    /// The external user id (`user_id`), once the app identified the user.
    public var userID: String?
    /// The device (`device_id`); the only identity of anonymous events.
    public var deviceID: String?
    /// The app session (`session_id`); banner and feature flag impressions are logged once per session.
    public var sessionID: String?
    /// The campaign or canvas step of the message; may be `nil` only for conversions.
    public var source: MessageSource?
    /// The variant (arm) of the campaign the user is in (`variant_id`).
    public var variantID: String?
    /// Whether the user is in the control group (`control`): a control send or a control impression.
    public var control: Bool
    /// The card, in-app message or feature flag id (`message_id`); content card ids are per send.
    public var messageID: String?
    /// The banner placement (`placement_id`).
    public var placementID: String?
    /// The button of an in-app message click (`button_id`); `nil` for a body click.
    public var buttonID: String?
    /// The clicked link (`url`).
    public var url: String?
    /// The device platform (`platform`).
    public var platform: Platform?
    /// The version of the messaging SDK (`sdk_version`).
    public var sdkVersion: String?
    /// The version of the app (`app_version`).
    public var appVersion: String?
    /// The version of the operating system (`os_version`).
    public var osVersion: String?
    /// Whether this is a test send (`test`); reports exclude test events by default.
    public var test: Bool
    /// The custom event name of a conversion (`name`), e.g. `"purchase"`.
    public var conversionName: String?
    /// The monetary or numeric value of a conversion (`value`), exact as sent.
    public var value: Decimal?
    /// The currency of `value` (`currency`): an ISO 4217 code of three upper-case letters.
    public var currency: String?
    /// The product a purchase is of (`product_id`).
    public var productID: String?
    /// A purchase's unit price (`price`); `value` is then `price × quantity`.
    public var price: Decimal?
    /// The units a purchase is of (`quantity`); set exactly when `price` is.
    public var quantity: Int?
    /// The order a conversion belongs to (`order_id`).
    public var orderID: String?
    /// The `properties` object as compact JSON text (member order and number text as received).
    public var propertiesJSON: String?

    /// Creates an event from typed fields; optional fields default to absent, flags to `false`.
    public init(
        id: UUID, type: EventType, channel: Channel? = nil, time: Date,
        userID: String? = nil, deviceID: String? = nil, sessionID: String? = nil,
        source: MessageSource? = nil, variantID: String? = nil, control: Bool = false,
        messageID: String? = nil, placementID: String? = nil, buttonID: String? = nil, url: String? = nil,
        platform: Platform? = nil, sdkVersion: String? = nil, appVersion: String? = nil, osVersion: String? = nil,
        test: Bool = false, conversionName: String? = nil, value: Decimal? = nil, currency: String? = nil,
        productID: String? = nil, price: Decimal? = nil, quantity: Int? = nil, orderID: String? = nil,
        propertiesJSON: String? = nil
    ) {
        self.id = id
        self.type = type
        self.channel = channel
        self.time = time
        self.userID = userID
        self.deviceID = deviceID
        self.sessionID = sessionID
        self.source = source
        self.variantID = variantID
        self.control = control
        self.messageID = messageID
        self.placementID = placementID
        self.buttonID = buttonID
        self.url = url
        self.platform = platform
        self.sdkVersion = sdkVersion
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.test = test
        self.conversionName = conversionName
        self.value = value
        self.currency = currency
        self.productID = productID
        self.price = price
        self.quantity = quantity
        self.orderID = orderID
        self.propertiesJSON = propertiesJSON
    }

    /// The identity reports count uniques by: the `user_id`, else `"device:"` followed by the `device_id`.
    ///
    /// DOMAIN.md: uniques are per user, and anonymous events have only a device. The prefix keeps a device id
    /// from being mistaken for a user id of the same text. A validated event always has one of the two.
    public var userKey: String {
        if let userID { userID } else { "device:" + (deviceID ?? "") }
    }

    /// `value` as canonical decimal text for storage: plain notation, no exponent, no trailing fraction
    /// zeros, exact (no binary floating point on the way), e.g. `"19.99"`, `"150"`, `"-0.5"`.
    public var valueText: String? {
        value?.description
    }

    /// `price` as canonical decimal text for storage, as ``valueText``.
    public var priceText: String? {
        price?.description
    }

    /// `time` as whole microseconds since 1970-01-01T00:00:00Z, the precision PostgreSQL stores.
    public var timeMicroseconds: Int64 {
        EpochTime.microseconds(of: time)
    }
}
