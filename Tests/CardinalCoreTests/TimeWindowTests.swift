import Testing
@testable import CardinalCore

@Suite struct TimeWindowTests {
    static let day: Int64 = 86_400_000

    @Test("A time exactly 24 h after receipt is accepted and one second more is time_in_future")
    func futureBoundary() throws {
        #expect(Fixture.accepted(.impression.with("time", #""2025-06-02T00:00:00Z""#)) != nil)
        let rejection = try #require(Fixture.rejected(.impression.with("time", #""2025-06-02T00:00:01Z""#)))
        #expect(rejection.code == .timeInFuture)
        #expect(rejection.message == #"field "time" is "2025-06-02T00:00:01Z", more than 24 h after the request was received at 2025-06-01T00:00:00Z"#)
    }

    @Test("The future bound is exact to the microsecond and the millisecond")
    func futureBoundaryPrecision() {
        #expect(Fixture.rejected(.impression.with("time", #""2025-06-02T00:00:00.000001Z""#))?.code == .timeInFuture)
        #expect(Fixture.accepted(.impression.with("time", "\(Fixture.nowMilliseconds + Self.day)")) != nil)
        #expect(Fixture.rejected(.impression.with("time", "\(Fixture.nowMilliseconds + Self.day + 1)"))?.code == .timeInFuture)
    }

    @Test("A time exactly 400 days before receipt is accepted and a millisecond older is time_too_old")
    func retentionBoundary() throws {
        let edge = Fixture.nowMilliseconds - 400 * Self.day
        #expect(Fixture.accepted(.impression.with("time", "\(edge)")) != nil)
        #expect(Fixture.accepted(.impression.with("time", #""2024-04-27T00:00:00Z""#)) != nil)
        let rejection = try #require(Fixture.rejected(.impression.with("time", "\(edge - 1)")))
        #expect(rejection.code == .timeTooOld)
        #expect(rejection.message == "field \"time\" is \(edge - 1) (2024-04-26T23:59:59.999Z), more than the retention "
            + "window of 400 days before the request was received at 2025-06-01T00:00:00Z")
        #expect(Fixture.rejected(.impression.with("time", #""2024-04-26T23:59:59.999999Z""#))?.code == .timeTooOld)
    }

    @Test("The retention window and future skew come from the policy")
    func policyBounds() {
        let policy = ValidationPolicy(retentionDays: 30, maxFutureSkew: .seconds(60))
        #expect(Fixture.accepted(.impression.with("time", #""2025-05-02T00:00:00Z""#), policy: policy) != nil)
        #expect(Fixture.rejected(.impression.with("time", #""2025-05-01T23:59:59Z""#), policy: policy)?.code == .timeTooOld)
        #expect(Fixture.accepted(.impression.with("time", #""2025-06-01T00:01:00Z""#), policy: policy) != nil)
        let rejection = Fixture.rejected(.impression.with("time", #""2025-06-01T00:01:01Z""#), policy: policy)
        #expect(rejection?.code == .timeInFuture)
        #expect(rejection?.message.contains("more than 60 s after") == true)
    }

    @Test("Epoch seconds sent by mistake are time_too_old with a hint")
    func epochSecondsHint() throws {
        let rejection = try #require(Fixture.rejected(.impression.with("time", "1748692800")))
        #expect(rejection.code == .timeTooOld)
        #expect(rejection.message.contains("(1970-01-21T05:44:52.8Z)"))
        #expect(rejection.message.hasSuffix("it looks like epoch seconds, but a numeric time is epoch milliseconds"))
    }

    @Test("The default policy is 400 days, 24 h and 16 KiB")
    func defaults() {
        let policy = ValidationPolicy()
        #expect(policy.retentionDays == 400)
        #expect(policy.retention == .seconds(400 * 86_400))
        #expect(policy.maxFutureSkew == .seconds(86_400))
        #expect(policy.maxPropertiesBytes == 16_384)
    }
}
