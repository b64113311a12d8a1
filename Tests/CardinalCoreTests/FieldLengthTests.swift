import Testing
@testable import CardinalCore

@Suite struct FieldLengthTests {
    static let limits: [(field: String, limit: Int)] = [
        ("user_id", 511), ("device_id", 255), ("session_id", 255), ("campaign_id", 255),
        ("variant_id", 255), ("message_id", 255), ("placement_id", 255), ("button_id", 255),
        ("url", 2048), ("sdk_version", 64), ("app_version", 64), ("os_version", 64),
    ]

    @Test("Each string field is accepted at its limit and too_long one character past it",
          arguments: zip(limits.map(\.field), limits.map(\.limit)))
    func lengthBoundary(field: String, limit: Int) throws {
        let atLimit = EventJSON.impression.with(field, Fixture.quoted(String(repeating: "x", count: limit)))
        #expect(Fixture.accepted(atLimit) != nil)
        let pastLimit = EventJSON.impression.with(field, Fixture.quoted(String(repeating: "x", count: limit + 1)))
        let rejection = try #require(Fixture.rejected(pastLimit))
        #expect(rejection.code == .tooLong)
        #expect(rejection.message == "field \"\(field)\" is \(limit + 1) characters; the limit is \(limit)")
    }

    @Test("A user_id of 511 characters is accepted and one of 512 is rejected with both numbers named")
    func userIDBoundary() throws {
        #expect(Fixture.accepted(.impression.with("user_id", Fixture.quoted(String(repeating: "u", count: 511)))) != nil)
        #expect(Fixture.rejected(.impression.with("user_id", Fixture.quoted(String(repeating: "u", count: 512))))?.code == .tooLong)
        let rejection = try #require(Fixture.rejected(.impression.with("user_id", Fixture.quoted(String(repeating: "u", count: 600)))))
        #expect(rejection.message == #"field "user_id" is 600 characters; the limit is 511"#)
    }

    @Test("Lengths count Unicode scalars, not UTF-8 bytes")
    func lengthsCountScalars() throws {
        // "é" is 2 bytes and "🙂" 4 bytes in UTF-8, but one scalar each.
        let accented = String(repeating: "é", count: 255)
        #expect(Fixture.accepted(.impression.with("campaign_id", Fixture.quoted(accented)))?.source == .campaign(accented))
        #expect(Fixture.accepted(.impression.with("sdk_version", Fixture.quoted(String(repeating: "🙂", count: 64)))) != nil)
        let rejection = try #require(Fixture.rejected(.impression.with("sdk_version", Fixture.quoted(String(repeating: "🙂", count: 65)))))
        #expect(rejection.code == .tooLong)
    }

    @Test("The canvas ids obey the identifier limit too", arguments: ["canvas_id", "canvas_step_id"])
    func canvasLengths(field: String) throws {
        let canvas = EventJSON.impression.without("campaign_id").with("canvas_id", #""cv""#).with("canvas_step_id", #""st""#)
        #expect(Fixture.accepted(canvas.with(field, Fixture.quoted(String(repeating: "c", count: 255)))) != nil)
        #expect(Fixture.rejected(canvas.with(field, Fixture.quoted(String(repeating: "c", count: 256))))?.code == .tooLong)
    }
}
