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

    @Test("An anonymous event's user key counts the 7 bytes of its device: prefix")
    func deviceKeyCountsPrefix() throws {
        // device: (7) + 255 × 4 + 255 × 4 = 2047 bytes, within; with a 4-byte variant of 139 scalars, 2603 bytes.
        let anonymous = EventJSON.impression.without("user_id")
            .with("device_id", Fixture.quoted(String(repeating: "🙂", count: 255)))
            .with("campaign_id", Fixture.quoted(String(repeating: "🙂", count: 255)))
        #expect(Fixture.accepted(anonymous.with("variant_id", Fixture.quoted(String(repeating: "🙂", count: 138)))) != nil)
        let rejection = try #require(Fixture.rejected(anonymous.with("variant_id", Fixture.quoted(String(repeating: "🙂", count: 139)))))
        #expect(rejection.message.hasPrefix(#"fields "campaign_id", "device_id" and "variant_id" are 2603 bytes"#))
    }

    @Test("A conversion's user key and name are bounded together for the conversion index")
    func conversionEntry() throws {
        let conversion = EventJSON.of(.conversion).with("user_id", Fixture.quoted(String(repeating: "🙂", count: 511)))
        #expect(Fixture.accepted(conversion.with("name", Fixture.quoted(String(repeating: "n", count: 255)))) != nil)
        let rejection = try #require(Fixture.rejected(conversion.with("name", Fixture.quoted(Self.threeByte(255)))))
        #expect(rejection.message.hasPrefix(#"fields "user_id" and "name" are 2809 bytes"#))
    }
}
