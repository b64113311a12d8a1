import Foundation
import Testing
@testable import CardinalCore

@Suite struct ConversionRulesTests {
    @Test("A conversion carries its name, exact value and currency")
    func conversionFields() throws {
        let event = try #require(Fixture.accepted(.of(.conversion).with("value", "19.99").with("currency", #""EUR""#)))
        #expect(event.type == .conversion)
        #expect(event.channel == nil)
        #expect(event.conversionName == "purchase")
        #expect(event.value == Decimal(sign: .plus, exponent: -2, significand: 1999))
        #expect(event.valueText == "19.99")
        #expect(event.currency == "EUR")
    }

    @Test("A value is exact whether sent as a number or a decimal string",
          arguments: [("19.99", "19.99"), (#""19.99""#, "19.99"), ("0.1", "0.1"), ("-5", "-5"), ("1.5e2", "150"),
                      ("19.90", "19.9"), ("-0", "0"), ("0.000001", "0.000001"), ("1E-3", "0.001"),
                      ("12345678901234567890.123456789012345678", "12345678901234567890.123456789012345678"),
                      (#""99999999999999999999999999999999999999""#, "99999999999999999999999999999999999999")])
    func exactValues(json: String, text: String) throws {
        let event = try #require(Fixture.accepted(.of(.conversion).with("value", json)))
        #expect(event.valueText == text)
        #expect(event.value == Decimal(string: text))
    }

    @Test("A value Decimal cannot hold exactly, or that is not a decimal, is invalid_value",
          arguments: ["1e200", "1e-200", #""123456789012345678901234567890123456789""#, #""abc""#, #""1,5""#,
                      #""+5""#, #""05""#, #"" 5""#, #""1.""#, #""NaN""#])
    func invalidValues(json: String) throws {
        #expect(Fixture.rejected(.of(.conversion).with("value", json))?.code == .invalidValue)
    }

    @Test("A value that is neither number nor string is invalid_type")
    func valueOfWrongType() {
        #expect(Fixture.rejected(.of(.conversion).with("value", "true"))?.code == .invalidType)
    }

    @Test("A conversion without a name is missing_field", arguments: [nil, "null", #""""#])
    func nameRequired(json: String?) throws {
        let conversion = EventJSON.of(.conversion)
        let event = json.map { conversion.with("name", $0) } ?? conversion.without("name")
        let rejection = try #require(Fixture.rejected(event))
        #expect(rejection.code == .missingField)
        #expect(rejection.message.contains("\"name\""))
    }

    @Test("A conversion name with a leading $ is invalid_value")
    func dollarName() throws {
        let rejection = try #require(Fixture.rejected(.of(.conversion).with("name", #""$purchase""#)))
        #expect(rejection.code == .invalidValue)
        #expect(Fixture.accepted(.of(.conversion).with("name", #""pay$""#))?.conversionName == "pay$")
    }

    @Test("A name whose first scalar is $ is invalid_value even when an accent joins it into another character")
    func dollarWithCombiningMark() throws {
        // "$\u0301x": one grapheme cluster "$́" then "x", so String.hasPrefix("$") is false, but PostgreSQL's
        // `conversion_name !~ '^\$'` sees the code point $ first and refuses the row.
        let rejection = try #require(Fixture.rejected(.of(.conversion).with("name", #""$\u0301x""#)))
        #expect(rejection.code == .invalidValue)
        #expect(Fixture.accepted(.of(.conversion).with("name", #""x\u0301$""#)) != nil)
    }

    @Test("A conversion name is accepted at 255 characters and too_long at 256")
    func nameLength() {
        #expect(Fixture.accepted(.of(.conversion).with("name", Fixture.quoted(String(repeating: "n", count: 255)))) != nil)
        #expect(Fixture.rejected(.of(.conversion).with("name", Fixture.quoted(String(repeating: "n", count: 256))))?.code
            == .tooLong)
    }

    @Test("A currency must be an ISO 4217 code",
          arguments: [#""usd""#, #""US""#, #""USDX""#, #""U5D""#, #""ABC""#, #""EUD""#, #""BTC""#])
    func invalidCurrency(json: String) {
        #expect(Fixture.rejected(.of(.conversion).with("currency", json))?.code == .invalidValue)
    }

    @Test("ISO 4217 codes of currencies, funds, metals and no currency are accepted",
          arguments: ["JPY", "GBP", "CHW", "XAU", "XXX", "ZWG", "XCG", "HRK"])
    func knownCurrency(code: String) {
        #expect(Fixture.accepted(.of(.conversion).with("value", "1").with("currency", Fixture.quoted(code)))?.currency
            == code)
    }

    @Test("A purchase's value is its price × quantity, with its product and order kept beside it")
    func purchase() throws {
        let event = try #require(Fixture.accepted(
            .of(.conversion).with("product_id", #""SKU-RUN-4821""#).with("price", "19.99").with("quantity", "3")
                .with("currency", #""USD""#).with("order_id", #""ord_77821""#)
        ))
        #expect(event.productID == "SKU-RUN-4821")
        #expect(event.price == Decimal(string: "19.99"))
        #expect(event.quantity == 3)
        #expect(event.valueText == "59.97")
        #expect(event.orderID == "ord_77821")
        #expect(event.currency == "USD")
    }

    @Test("A price without a quantity is one unit")
    func priceWithoutQuantity() throws {
        let event = try #require(Fixture.accepted(.of(.conversion).with("price", #""0.99""#)))
        #expect(event.quantity == 1)
        #expect(event.valueText == "0.99")
    }

    @Test("A value beside a price, or a quantity without a price, is invalid_value")
    func purchaseConflicts() throws {
        let both = try #require(Fixture.rejected(.of(.conversion).with("value", "10").with("price", "10")))
        #expect(both.code == .invalidValue)
        #expect(both.message.contains("\"value\" and \"price\""))
        let units = try #require(Fixture.rejected(.of(.conversion).with("value", "10").with("quantity", "2")))
        #expect(units.code == .invalidValue)
        #expect(units.message.contains("needs a \"price\""))
    }

    @Test("A quantity must be a whole number from 1", arguments: ["0", "-1", "1.5", "2e0", "2147483648"])
    func invalidQuantity(json: String) {
        #expect(Fixture.rejected(.of(.conversion).with("price", "1").with("quantity", json))?.code == .invalidValue)
    }

    @Test("A quantity sent as a string is invalid_type")
    func quantityOfWrongType() {
        #expect(Fixture.rejected(.of(.conversion).with("price", "1").with("quantity", #""2""#))?.code == .invalidType)
    }

    @Test("price × quantity past 38 significant digits is invalid_value, not rounded")
    func purchaseValueTooLong() throws {
        let price = #""99999999999999999999999999999999999999""#
        #expect(Fixture.accepted(.of(.conversion).with("price", price).with("quantity", "1")) != nil)
        let rejection = try #require(Fixture.rejected(.of(.conversion).with("price", price).with("quantity", "3")))
        #expect(rejection.code == .invalidValue)
        #expect(rejection.message.contains("38 significant digits"))
    }

    @Test("A channel on a conversion is not_allowed")
    func channelOnConversion() throws {
        let rejection = try #require(Fixture.rejected(.of(.conversion).with("channel", #""push""#)))
        #expect(rejection.code == .notAllowed)
        #expect(rejection.message.hasPrefix(#"field "channel" is not allowed on a conversion"#))
    }

    @Test("name, value, currency and the purchase fields are not_allowed on any other type",
          arguments: [EventType.send, .impression, .click, .dismissal],
          [("name", #""x""#), ("value", "1"), ("currency", #""USD""#), ("product_id", #""p""#), ("price", "1"),
           ("quantity", "1"), ("order_id", #""o""#)])
    func conversionFieldsElsewhere(type: EventType, field: (name: String, json: String)) throws {
        let rejection = try #require(Fixture.rejected(.of(type).with(field.name, field.json)))
        #expect(rejection.code == .notAllowed)
        #expect(rejection.message.hasPrefix("field \"\(field.name)\" is not allowed on"))
    }
}
