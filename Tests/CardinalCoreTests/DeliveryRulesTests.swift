import Testing
@testable import CardinalCore

@Suite struct DeliveryRulesTests {
    @Test("A push delivery is accepted with its campaign and variant")
    func pushDeliveryAccepted() throws {
        let event = try #require(Fixture.accepted(.of(.delivery).with("variant_id", #""v1""#)))
        #expect(event.type == .delivery)
        #expect(event.channel == .push)
        #expect(event.source == .campaign("camp-1"))
        #expect(event.variantID == "v1")
    }

    @Test("A delivery on any other channel is invalid_value: only a push reaches the device that way",
          arguments: Channel.allCases.filter { $0 != .push })
    func deliveryOffPush(channel: Channel) throws {
        let rejection = try #require(Fixture.rejected(.of(.delivery).with("channel", Fixture.quoted(channel.rawValue))))
        #expect(rejection.code == .invalidValue)
        #expect(rejection.message.hasPrefix("field \"channel\" is \"\(channel.rawValue)\" on a delivery"))
    }

    @Test("A control delivery is not_allowed: control users are sent nothing")
    func controlDelivery() {
        #expect(Fixture.rejected(.of(.delivery).with("control", "true"))?.code == .notAllowed)
    }
}
