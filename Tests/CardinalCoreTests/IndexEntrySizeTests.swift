import Testing
@testable import CardinalCore

/// The UTF-8 byte budget of the text columns in one index entry (``Limits/indexedTextMaxBytes``).
@Suite struct IndexEntrySizeTests {
    /// `count` scalars of 3 bytes each in UTF-8.
    static func threeByte(_ count: Int) -> String { String(repeating: "€", count: count) }

    @Test("Full-length ids in 3-byte UTF-8 are too_long together although each is within its character limit")
    func campaignEntryOverBudget() throws {
        // 511 + 255 + 255 scalars of 3 bytes: 3063 bytes, more than a B-tree entry can hold.
        let event = EventJSON.impression
            .with("user_id", Fixture.quoted(Self.threeByte(511)))
            .with("campaign_id", Fixture.quoted(Self.threeByte(255)))
            .with("variant_id", Fixture.quoted(Self.threeByte(255)))
        let rejection = try #require(Fixture.rejected(event))
        #expect(rejection.code == .tooLong)
        #expect(rejection.message
            == #"fields "campaign_id", "user_id" and "variant_id" are 3063 bytes together in UTF-8; the limit is 2600, the most one index entry can hold"#)
    }

    @Test("The campaign index entry is accepted at exactly the byte budget and too_long one byte past it")
    func campaignEntryBoundary() throws {
        // 1533 + 765 + 302 = 2600 bytes.
        let atBudget = EventJSON.impression
            .with("user_id", Fixture.quoted(Self.threeByte(511)))
            .with("campaign_id", Fixture.quoted(Self.threeByte(255)))
            .with("variant_id", Fixture.quoted(Self.threeByte(100) + "vv"))
        #expect(Fixture.accepted(atBudget) != nil)
        #expect(Fixture.rejected(atBudget.with("variant_id", Fixture.quoted(Self.threeByte(100) + "vvv")))?.code == .tooLong)
    }

    @Test("Ids in ASCII at their character limits are within every budget, anonymous or not, campaign or canvas",
          arguments: [false, true], [false, true])
    func asciiIdsAtTheirLimits(anonymous: Bool, canvas: Bool) throws {
        // ' is the worst ASCII character: the report state's row key quotes it twice.
        func ascii(_ count: Int) -> String { Fixture.quoted(String(repeating: "'", count: count)) }
        var event = EventJSON.impression.with("channel", #""in_app_message""#).with("platform", #""android""#)
        event = anonymous ? event.without("user_id").with("device_id", ascii(255)) : event.with("user_id", ascii(511))
        event = canvas
            ? event.without("campaign_id").with("canvas_id", ascii(255)).with("canvas_step_id", ascii(255))
            : event.with("campaign_id", ascii(255))
        for field in ["session_id", "variant_id", "message_id", "placement_id", "button_id"] {
            event = event.with(field, ascii(255))
        }
        #expect(Fixture.accepted(event.with("sdk_version", ascii(64)).with("app_version", ascii(64))) != nil)
    }

    /// `count` scalars of 4 bytes each in UTF-8.
    static func fourByte(_ count: Int) -> String { String(repeating: "🙂", count: count) }

    @Test("An anonymous event's user key counts as the longest user_id, which a login can give its device's state")
    func deviceKeyCountsAsLongestUser() throws {
        // camp-1 (6) + 2044 + 183 × 3 = 2599 bytes, within; with 184 scalars of 3 bytes, 2602.
        let anonymous = EventJSON.impression.without("user_id").with("device_id", #""phone-1""#)
        #expect(Fixture.accepted(anonymous.with("variant_id", Fixture.quoted(Self.threeByte(183)))) != nil)
        let rejection = try #require(Fixture.rejected(anonymous.with("variant_id", Fixture.quoted(Self.threeByte(184)))))
        #expect(rejection.message == #"fields "campaign_id", "device_id" and "variant_id" are 2602 bytes together in UTF-8 "#
            + #"("device_id" counted as the longest user_id, 2044 bytes, which a login can give the device in the report "#
            + #"state); the limit is 2600, the most one index entry can hold"#)
        // The same variant with a short user_id is far within.
        #expect(Fixture.accepted(EventJSON.impression.with("variant_id", Fixture.quoted(Self.threeByte(184)))) != nil)
    }

    @Test("The user key and each of session_id, message_id, placement_id and button_id are bounded together",
          arguments: ["session_id", "message_id", "placement_id", "button_id"])
    func userAndPartEntry(field: String) throws {
        // 2044 + 139 × 4 = 2600 bytes, within; 140 scalars, 2604.
        let event = EventJSON.impression.with("user_id", Fixture.quoted(Self.fourByte(511)))
        #expect(Fixture.accepted(event.with(field, Fixture.quoted(Self.fourByte(139)))) != nil)
        let rejection = try #require(Fixture.rejected(event.with(field, Fixture.quoted(Self.fourByte(140)))))
        #expect(rejection.code == .tooLong)
        #expect(rejection.message.hasPrefix(#"fields "user_id" and "\#(field)" are 2604 bytes together"#))
    }

    @Test("A canvas step's source, variant, channel and versions are bounded together for the report groups")
    func reportGroupEntry() throws {
        // The group's columns are canvas 1020 + step 400 + variant 1020 + content_card (12) + ios (3) + 256 + 256
        // = 2967 bytes; without the versions, 2455.
        let canvas = EventJSON.impression.without("campaign_id")
            .with("canvas_id", Fixture.quoted(Self.fourByte(255)))
            .with("canvas_step_id", Fixture.quoted(Self.fourByte(100)))
            .with("variant_id", Fixture.quoted(Self.fourByte(255)))
            .with("platform", #""ios""#)
        #expect(Fixture.accepted(canvas) != nil)
        let rejection = try #require(Fixture.rejected(canvas
            .with("sdk_version", Fixture.quoted(Self.fourByte(64)))
            .with("app_version", Fixture.quoted(Self.fourByte(64)))))
        #expect(rejection.message.hasPrefix(
            #"fields "canvas_id", "canvas_step_id", "variant_id", "channel", "platform", "sdk_version" and "app_version" are 2967 bytes"#))
    }

    @Test("A report row's key counts each ' of its ids twice, as quote_nullable writes it")
    func quotedRowKeyEntry() throws {
        // Raw: 1020 + 1020 + (90 × 4 + 165) = 2565 bytes, within every other entry. Quoted: 1022 + 1022 +
        // (525 + 165 + 2) + 'content_card' (14) = 2750.
        let quotes = String(repeating: "'", count: 165)
        let canvas = EventJSON.impression.without("campaign_id")
            .with("canvas_id", Fixture.quoted(Self.fourByte(255)))
            .with("canvas_step_id", Fixture.quoted(Self.fourByte(255)))
        let rejection = try #require(Fixture.rejected(canvas.with("variant_id", Fixture.quoted(Self.fourByte(90) + quotes))))
        #expect(rejection.message == #"fields "canvas_id", "canvas_step_id", "variant_id" and "channel" are 2750 bytes "#
            + #"together in UTF-8 as the report state quotes them (a ' or \ counts twice); the limit is 2600, the most "#
            + "one index entry can hold")
        // The same bytes without quotes to double: 1022 + 1022 + 527 + 14 = 2585.
        let letters = String(repeating: "q", count: 165)
        #expect(Fixture.accepted(canvas.with("variant_id", Fixture.quoted(Self.fourByte(90) + letters))) != nil)
    }

    @Test("A conversion's user key and name are bounded together for the conversion index")
    func conversionEntry() throws {
        let conversion = EventJSON.of(.conversion).with("user_id", Fixture.quoted(String(repeating: "🙂", count: 511)))
        #expect(Fixture.accepted(conversion.with("name", Fixture.quoted(String(repeating: "n", count: 255)))) != nil)
        let rejection = try #require(Fixture.rejected(conversion.with("name", Fixture.quoted(Self.threeByte(255)))))
        #expect(rejection.message.hasPrefix(#"fields "user_id" and "name" are 2809 bytes"#))
    }

    @Test("A conversion's name, order_id and product_id are bounded together for the first-of-order index")
    func orderEntry() throws {
        // 255 + 255 + 140 four-byte scalars are 2600 bytes, the budget; one more scalar of the product is past it.
        let order = EventJSON.of(.conversion).with("user_id", Fixture.quoted("u1"))
            .with("name", Fixture.quoted(Self.fourByte(255))).with("order_id", Fixture.quoted(Self.fourByte(255)))
        #expect(Fixture.accepted(order.with("product_id", Fixture.quoted(Self.fourByte(140)))) != nil)
        let rejection = try #require(Fixture.rejected(order.with("product_id", Fixture.quoted(Self.fourByte(141)))))
        #expect(rejection.message.hasPrefix(#"fields "name", "order_id" and "product_id" are 2604 bytes"#))
    }
}
