import Foundation
import Testing
@testable import CardinalCore

@Suite struct EventValidationTests {
    @Test("A minimal impression is accepted with every field typed")
    func minimalImpression() throws {
        let event = try #require(Fixture.accepted(.impression))
        #expect(event.id == UUID(uuidString: "0b9a3f52-6a2e-4c1e-9d57-3f1c2b7e8a10"))
        #expect(event.type == .impression)
        #expect(event.channel == .contentCard)
        #expect(event.time == Date(timeIntervalSince1970: 1_748_692_800))
        #expect(event.userID == "user-1")
        #expect(event.source == .campaign("camp-1"))
        #expect(event.control == false)
        #expect(event.test == false)
        #expect(event.deviceID == nil && event.propertiesJSON == nil && event.platform == nil)
    }

    @Test("Every optional field is read into its typed property")
    func everyOptionalField() throws {
        let json = EventJSON.impression
            .with("device_id", #""dev-1""#).with("session_id", #""sess-1""#).with("variant_id", #""v2""#)
            .with("message_id", #""card-9""#).with("placement_id", #""home-top""#).with("button_id", #""0""#)
            .with("url", #""https://example.com/a""#).with("platform", #""android""#)
            .with("sdk_version", #""5.1.0""#).with("app_version", #""3.2""#).with("os_version", #""14""#)
            .with("test", "true").with("control", "true").with("properties", #"{"a": [1, 2.50]}"#)
        let event = try #require(Fixture.accepted(json))
        #expect(event.deviceID == "dev-1")
        #expect(event.sessionID == "sess-1")
        #expect(event.variantID == "v2")
        #expect(event.messageID == "card-9")
        #expect(event.placementID == "home-top")
        #expect(event.buttonID == "0")
        #expect(event.url == "https://example.com/a")
        #expect(event.platform == .android)
        #expect(event.sdkVersion == "5.1.0" && event.appVersion == "3.2" && event.osVersion == "14")
        #expect(event.test && event.control)
        #expect(event.propertiesJSON == #"{"a":[1,2.50]}"#)
    }

    @Test("Every event type and channel is accepted by its wire name", arguments: EventType.allCases)
    func everyType(type: EventType) throws {
        let event = try #require(Fixture.accepted(.of(type)))
        #expect(event.type == type)
        // A delivery is push only (DeliveryRulesTests).
        for channel in Channel.allCases where !type.isAppLevel && (type != .delivery || channel == .push) {
            let withChannel = try #require(Fixture.accepted(.of(type).with("channel", Fixture.quoted(channel.rawValue))))
            #expect(withChannel.channel == channel)
        }
    }

    @Test("A rejection carries the index, the raw id, the code and the event as compact JSON")
    func rejectionCarriesEvidence() throws {
        let text = #"{ "id": "not-a-uuid", "type": "click" }"#
        let value = try JSONValue.parse(text)
        let result = EventValidator().validate(value, index: 7, now: Fixture.now)
        let rejection = try #require(result.failureValue)
        #expect(rejection.index == 7)
        #expect(rejection.id == "not-a-uuid")
        #expect(rejection.code == .invalidUUID)
        #expect(rejection.rawJSON == #"{"id":"not-a-uuid","type":"click"}"#)
    }

    @Test("A missing, null or empty id is missing_field", arguments: [nil, "null", #""""#])
    func missingID(json: String?) throws {
        let event = json.map { EventJSON.impression.with("id", $0) } ?? EventJSON.impression.without("id")
        let rejection = try #require(Fixture.rejected(event))
        #expect(rejection.code == .missingField)
        #expect(rejection.message.contains("\"id\""))
    }

    @Test("An id that is not a canonical UUID is invalid_uuid",
          arguments: [#""0b9a3f526a2e4c1e9d573f1c2b7e8a10""#, #""{0b9a3f52-6a2e-4c1e-9d57-3f1c2b7e8a10}""#,
                      #""0b9a3f52-6a2e-4c1e-9d57-3f1c2b7e8a1g""#, #""0b9a3f52+6a2e-4c1e-9d57-3f1c2b7e8a10""#])
    func invalidUUID(json: String) throws {
        #expect(Fixture.rejected(.impression.with("id", json))?.code == .invalidUUID)
    }

    @Test("An upper-case UUID is accepted and equals its lower-case form")
    func upperCaseUUID() throws {
        let event = try #require(Fixture.accepted(.impression.with("id", #""0B9A3F52-6A2E-4C1E-9D57-3F1C2B7E8A10""#)))
        #expect(event.id == UUID(uuidString: "0b9a3f52-6a2e-4c1e-9d57-3f1c2b7e8a10"))
    }

    @Test("An id of the wrong JSON type is invalid_type and has no raw id")
    func idOfWrongType() throws {
        let rejection = try #require(Fixture.rejected(.impression.with("id", "42")))
        #expect(rejection.code == .invalidType)
        #expect(rejection.id == nil)
    }

    @Test("An unknown type or platform value is invalid_value and lists the allowed values")
    func unknownEnumValues() throws {
        let type = try #require(Fixture.rejected(.impression.with("type", #""view""#)))
        #expect(type.code == .invalidValue)
        #expect(type.message == #"field "type" is "view"; expected one of send, impression, click, dismissal, delivery, conversion, session_start"#)
        #expect(Fixture.rejected(.impression.with("platform", #""iOS""#))?.code == .invalidValue)
        #expect(Fixture.rejected(.impression.with("channel", #""email""#))?.code == .invalidValue)
    }

    @Test("A missing type is missing_field")
    func missingType() {
        #expect(Fixture.rejected(.impression.without("type"))?.code == .missingField)
    }

    @Test("A channel is required on every type but conversion", arguments: [EventType.send, .impression, .click, .dismissal])
    func channelRequired(type: EventType) throws {
        let rejection = try #require(Fixture.rejected(.of(type).without("channel")))
        #expect(rejection.code == .missingField)
        #expect(rejection.message.contains("\"channel\""))
    }

    @Test("At least one of user_id and device_id is required; a device alone is enough")
    func identityRequired() throws {
        let anonymous = EventJSON.impression.without("user_id")
        let rejection = try #require(Fixture.rejected(anonymous))
        #expect(rejection.code == .missingField)
        #expect(rejection.message == #"one of "user_id" or "device_id" is required"#)
        let device = try #require(Fixture.accepted(anonymous.with("device_id", #""dev-1""#)))
        #expect(device.userID == nil && device.deviceID == "dev-1")
    }

    @Test("A null optional field reads as absent")
    func nullIsAbsent() throws {
        let event = try #require(Fixture.accepted(.impression.with("device_id", "null").with("platform", "null")
            .with("control", "null").with("properties", "null")))
        #expect(event.deviceID == nil && event.platform == nil && event.control == false && event.propertiesJSON == nil)
    }

    @Test("An empty optional string is invalid_value, not silently dropped")
    func emptyOptionalString() throws {
        let rejection = try #require(Fixture.rejected(.impression.with("session_id", #""""#)))
        #expect(rejection.code == .invalidValue)
        #expect(rejection.message == #"field "session_id" is empty; omit it or give a value"#)
    }

    @Test("Flags must be JSON booleans: the string \"true\" and the number 1 are invalid_type",
          arguments: ["control", "test"], [#""true""#, "1"])
    func flagsMustBeBooleans(field: String, json: String) throws {
        let rejection = try #require(Fixture.rejected(.impression.with(field, json)))
        #expect(rejection.code == .invalidType)
        #expect(rejection.message.hasPrefix("field \"\(field)\" must be true or false, got"))
    }

    @Test("A string field given a number is invalid_type")
    func stringFieldGivenNumber() {
        #expect(Fixture.rejected(.impression.with("campaign_id", "17"))?.code == .invalidType)
    }

    @Test("A field holding a NUL character is invalid_value, since PostgreSQL cannot store it")
    func nulCharacter() throws {
        let rejection = try #require(Fixture.rejected(.impression.with("message_id", #""a\u0000b""#)))
        #expect(rejection.code == .invalidValue)
        #expect(rejection.message.contains("NUL"))
    }

    @Test("A field given twice is duplicate_field, whichever value comes first")
    func duplicateField() throws {
        let text = EventJSON.impression.text.dropLast() + #","user_id":"user-2"}"#
        let rejection = try #require(Fixture.validate(text: String(text)).failureValue)
        #expect(rejection.code == .duplicateField)
        #expect(rejection.message == #"field "user_id" is given more than once"#)
    }

    @Test("A JSON value that is not an object is not_an_object")
    func notAnObject() throws {
        let rejection = try #require(EventValidator().validate(.array([]), index: 3, now: Fixture.now).failureValue)
        #expect(rejection.code == .notAnObject)
        #expect(rejection.index == 3)
        #expect(rejection.rawJSON == "[]")
    }
}

extension Result {
    /// The failure, or `nil` on success.
    var failureValue: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
