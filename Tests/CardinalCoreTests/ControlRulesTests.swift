import Testing
@testable import CardinalCore

@Suite struct ControlRulesTests {
    @Test("A control send and a control impression are accepted", arguments: [EventType.send, .impression])
    func controlAllowed(type: EventType) {
        #expect(Fixture.accepted(.of(type).with("control", "true"))?.control == true)
    }

    @Test("A control click or dismissal is control_interaction", arguments: [EventType.click, .dismissal])
    func controlInteraction(type: EventType) throws {
        let rejection = try #require(Fixture.rejected(.of(type).with("control", "true")))
        #expect(rejection.code == .controlInteraction)
        #expect(rejection.message.hasPrefix("field \"control\" is true on a \(type.rawValue)"))
    }

    @Test("control false is the default and allowed on every type", arguments: EventType.allCases)
    func controlFalse(type: EventType) {
        #expect(Fixture.accepted(.of(type).with("control", "false"))?.control == false)
        #expect(Fixture.accepted(.of(type))?.control == false)
    }

    @Test("A control conversion is not_allowed")
    func controlConversion() {
        #expect(Fixture.rejected(.of(.conversion).with("control", "true"))?.code == .notAllowed)
    }

    @Test("Only send and impression allow control")
    func allowsControl() {
        #expect(EventType.allCases.filter(\.allowsControl) == [.send, .impression])
    }
}
