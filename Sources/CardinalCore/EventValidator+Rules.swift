import Foundation

/// The rules that tie several fields or the event type together.
extension EventValidator {
    /// `campaign_id`, or `canvas_id` with `canvas_step_id`: exactly one source, required unless the event
    /// is a conversion (which may carry one to attribute itself, or none) or a session start (which has none).
    func messageSource(_ fields: RawEventFields, type: EventType) throws(ValidationFailure) -> MessageSource? {
        let campaignID = try fields.string(.campaignID, maxLength: Limits.identifierMaxLength)
        let canvasID = try fields.string(.canvasID, maxLength: Limits.identifierMaxLength)
        let canvasStepID = try fields.string(.canvasStepID, maxLength: Limits.identifierMaxLength)
        if type == .sessionStart, let given = campaignID != nil ? EventField.campaignID
            : canvasID != nil ? EventField.canvasID : canvasStepID != nil ? EventField.canvasStepID : nil {
            throw .notAllowed(given, on: type, "an app open belongs to no message")
        }
        switch (campaignID, canvasID, canvasStepID) {
        case (let campaignID?, nil, nil):
            return .campaign(campaignID)
        case (nil, let canvasID?, let canvasStepID?):
            return .canvas(id: canvasID, stepID: canvasStepID)
        case (_?, _, _):
            let other = canvasID != nil ? "canvas_id" : "canvas_step_id"
            throw ValidationFailure(
                code: .conflictingSource,
                message: "both \"campaign_id\" and \"\(other)\" are given; "
                    + "an event comes from a campaign or from a canvas step, not both")
        case (nil, _?, nil):
            throw .missing(.canvasStepID, " with \"canvas_id\"")
        case (nil, nil, _?):
            throw .missing(.canvasID, " with \"canvas_step_id\"")
        case (nil, nil, nil):
            guard type.isAppLevel else {
                throw ValidationFailure(
                    code: .missingField,
                    message: "one of \"campaign_id\" or \"canvas_id\" with \"canvas_step_id\" is required "
                        + "for \(ValidationFailure.article(type))")
            }
            return nil
        }
    }

    /// `control`: true only on a send (enrolment) or an impression (the moment the control user would have
    /// seen the message). A control click or dismissal is an integration bug worth its own code.
    func controlFlag(_ fields: RawEventFields, type: EventType) throws(ValidationFailure) -> Bool {
        guard try fields.bool(.control) == true else { return false }
        switch type {
        case .send, .impression:
            return true
        case .click, .dismissal:
            throw ValidationFailure(
                code: .controlInteraction,
                message: "field \"control\" is true on \(ValidationFailure.article(type)); control users are never "
                    + "shown the message, so they cannot click or dismiss it")
        case .delivery, .conversion, .sessionStart:
            throw .notAllowed(.control, on: type, "control is set on the send and impression events of a campaign")
        }
    }

    /// A delivery is a push notification reaching the device; the other channels are received when shown, and
    /// log an impression then (a CHECK of `events`).
    func checkDelivery(type: EventType, channel: Channel?) throws(ValidationFailure) {
        guard type == .delivery, let channel, channel != .push else { return }
        throw ValidationFailure(
            code: .invalidValue,
            message: "field \"channel\" is \"\(channel.rawValue)\" on a delivery; only a push is delivered to the "
                + "device, other channels log an impression when the message is shown")
    }

    /// A session start is an app open: it names no variant, message or button (a CHECK of `events`).
    func checkSessionStart(_ event: Event) throws(ValidationFailure) {
        guard event.type == .sessionStart else { return }
        let given: [(EventField, String?)] = [(.variantID, event.variantID), (.messageID, event.messageID), (.buttonID, event.buttonID)]
        if let field = given.first(where: { $0.1 != nil })?.0 {
            throw .notAllowed(field, on: event.type, "an app open belongs to no message")
        }
    }

    /// `name`, `value`, `currency` and the purchase fields: only on a conversion, where `name` is required.
    func readConversion(_ fields: RawEventFields, type: EventType, into event: inout Event) throws(ValidationFailure) {
        guard type == .conversion else {
            let conversionFields: [EventField] = [.name, .value, .currency, .productID, .price, .quantity, .orderID]
            for field in conversionFields where fields.present(field) != nil {
                throw .notAllowed(field, on: type, "it belongs to conversions")
            }
            return
        }
        let name = try fields.requiredString(.name, maxLength: Limits.conversionNameMaxLength, context: " for a conversion")
        // On Unicode scalars, as PostgreSQL's `!~ '^\$'` reads it: `hasPrefix` compares grapheme clusters, and
        // "$\u{301}x" (a dollar sign with a combining accent) does not start with the cluster "$".
        if name.unicodeScalars.first == "$" {
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \"name\" is \(ValidationFailure.quoted(name)); a leading \"$\" is reserved for built-in events")
        }
        event.conversionName = name
        event.value = try decimal(.value, fields)
        if let currency = try fields.string(.currency, maxLength: Limits.identifierMaxLength) {
            guard ISO4217.isCurrencyCode(currency) else {
                throw ValidationFailure(
                    code: .invalidValue,
                    message: "field \"currency\" is \(ValidationFailure.quoted(currency)); "
                        + "expected an ISO 4217 currency code such as \"USD\" or \"EUR\"")
            }
            event.currency = currency
        }
        try readPurchase(fields, into: &event)
    }

    /// `product_id`, `price`, `quantity` and `order_id`, as `logPurchase(productId, currency, price, quantity)`
    /// and the e-commerce events log them. A price makes the value: price × quantity (1 unit when none is given),
    /// so revenue counts it as any other value; a `value` beside a `price` would say it twice.
    private func readPurchase(_ fields: RawEventFields, into event: inout Event) throws(ValidationFailure) {
        event.productID = try fields.string(.productID, maxLength: Limits.identifierMaxLength)
        event.orderID = try fields.string(.orderID, maxLength: Limits.identifierMaxLength)
        let quantity = try units(fields)
        guard let price = try decimal(.price, fields) else {
            if quantity != nil {
                throw ValidationFailure(
                    code: .invalidValue, message: "field \"quantity\" needs a \"price\": a purchase's value is price × quantity")
            }
            return
        }
        guard event.value == nil else {
            throw ValidationFailure(
                code: .invalidValue,
                message: "fields \"value\" and \"price\" are both given; send the price (and quantity) of a purchase, "
                    + "or its value, not both")
        }
        let count = quantity ?? 1
        guard let value = Self.purchaseValue(price, count) else {
            throw ValidationFailure(
                code: .invalidValue,
                message: "price × quantity (\(price) × \(count)) has more than \(Limits.valueMaxSignificantDigits) "
                    + "significant digits, too many to store exactly")
        }
        event.price = price
        event.quantity = count
        event.value = value
    }

    /// price × count, exact and storable as a `value` is, or `nil` when it is not.
    private static func purchaseValue(_ price: Decimal, _ count: Int) -> Decimal? {
        var result = Decimal()
        var left = price
        var right = Decimal(count)
        guard NSDecimalMultiply(&result, &left, &right, .plain) == .noError,
              case .success(let checked) = DecimalParser.parse(result.description)
        else {
            return nil
        }
        return checked
    }

    /// `quantity`: a whole number of units, at least 1.
    private func units(_ fields: RawEventFields) throws(ValidationFailure) -> Int? {
        guard let given = fields.present(.quantity) else { return nil }
        guard case .number(let text) = given else {
            throw .wrongType(.quantity, expected: "a whole number", got: given)
        }
        guard let count = Int32(text), count >= 1 else {
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \"quantity\" is \(ValidationFailure.shownNumber(text)); expected a whole number of units "
                    + "from 1 to \(Int32.max)")
        }
        return Int(count)
    }

    /// `value` or `price`: a JSON number or a decimal string, read exactly.
    private func decimal(_ field: EventField, _ fields: RawEventFields) throws(ValidationFailure) -> Decimal? {
        let text: String
        let shown: String
        switch fields.present(field) {
        case nil: return nil
        case .number(let number)?: (text, shown) = (number, ValidationFailure.shownNumber(number))
        case .string(let string)?: (text, shown) = (string, ValidationFailure.quoted(string))
        case let other?: throw .wrongType(field, expected: "a number or a decimal string", got: other)
        }
        let name = ValidationFailure.quoted(field)
        switch DecimalParser.parse(text) {
        case .success(let decimal):
            return decimal
        case .failure(.syntax):
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \(name) is \(shown); expected a decimal number such as 19.99")
        case .failure(.tooManyDigits(let count)):
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \(name) has \(count) significant digits; the limit is \(Limits.valueMaxSignificantDigits)")
        case .failure(.outOfRange):
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \(name) is \(shown), too large or too small to store exactly")
        }
    }
}
