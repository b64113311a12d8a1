import Testing
@testable import CardinalCore

@Suite struct SessionStartRulesTests {
    @Test("A session start is an app-level event with no channel and no message source")
    func sessionStartAccepted() throws {
        let event = try #require(Fixture.accepted(.of(.sessionStart).with("session_id", #""s-1""#)))
        #expect(event.type == .sessionStart)
        #expect(event.channel == nil)
        #expect(event.source == nil)
        #expect(event.sessionID == "s-1")
        #expect(event.conversionName == nil)
    }

    @Test("A session start with a channel is not_allowed")
    func sessionStartWithChannel() throws {
        let rejection = try #require(Fixture.rejected(.of(.sessionStart).with("channel", #""push""#)))
        #expect(rejection.code == .notAllowed)
        #expect(rejection.message.hasPrefix(#"field "channel" is not allowed on a session_start"#))
    }

    @Test("A session start naming a message source, variant, message or button is not_allowed",
          arguments: [
            ("campaign_id", #""camp-1""#), ("canvas_id", #""cv""#), ("variant_id", #""v1""#),
            ("message_id", #""m1""#), ("button_id", #""b1""#),
          ])
    func sessionStartWithMessageFields(field: String, json: String) throws {
        var event = EventJSON.of(.sessionStart).with(field, json)
        if field == "canvas_id" { event = event.with("canvas_step_id", #""step""#) }
        let rejection = try #require(Fixture.rejected(event))
        #expect(rejection.code == .notAllowed)
        #expect(rejection.message.hasPrefix("field \"\(field)\" is not allowed on a session_start"))
    }

    @Test("A session start with control true, or a name, is not_allowed")
    func sessionStartWithConversionFields() {
        #expect(Fixture.rejected(.of(.sessionStart).with("control", "true"))?.code == .notAllowed)
        #expect(Fixture.rejected(.of(.sessionStart).with("name", #""purchase""#))?.code == .notAllowed)
    }
}
