import Foundation
import Testing
@testable import CardinalCore

@Suite struct UserKeyTests {
    static func event(userID: String?, deviceID: String?) -> Event {
        Event(id: UUID(), type: .impression, channel: .banner, time: Fixture.now, userID: userID, deviceID: deviceID,
              source: .campaign("c"))
    }

    @Test("The user key is the user id when there is one, whatever the device")
    func userIDWins() {
        #expect(Self.event(userID: "u-1", deviceID: "d-1").userKey == "u-1")
        #expect(Self.event(userID: "u-1", deviceID: nil).userKey == "u-1")
    }

    @Test("An anonymous event is keyed by its device with a prefix")
    func deviceKey() {
        #expect(Self.event(userID: nil, deviceID: "d-1").userKey == "device:d-1")
    }

    @Test("A device id never collides with a user id of the same text")
    func noCollision() {
        #expect(Self.event(userID: "abc", deviceID: nil).userKey != Self.event(userID: nil, deviceID: "abc").userKey)
    }

    @Test("A validated anonymous event gets the device key")
    func validatedAnonymous() throws {
        let event = try #require(Fixture.accepted(.impression.without("user_id").with("device_id", #""d-9""#)))
        #expect(event.userKey == "device:d-9")
    }
}
