import Foundation
import Testing
@testable import CardinalCore

@Suite struct TimeParsingTests {
    /// 2025-05-31T12:00:00Z in microseconds since the Unix epoch.
    static let noon: Int64 = 1_748_692_800_000_000

    @Test("RFC 3339 timestamps in UTC, with offsets and in lower case name the same instant",
          arguments: ["2025-05-31T12:00:00Z", "2025-05-31t12:00:00z", "2025-05-31T14:00:00+02:00",
                      "2025-05-31T06:30:00-05:30", "2025-05-31T12:00:00-00:00", "2025-06-01T00:00:00+12:00"])
    func sameInstant(text: String) {
        #expect(RFC3339.microseconds(from: text) == Self.noon)
    }

    @Test("Fractions of 1 to 9 digits are read to the microsecond, later digits truncated",
          arguments: [("2025-05-31T12:00:00.1Z", 100_000), ("2025-05-31T12:00:00.123456Z", 123_456),
                      ("2025-05-31T12:00:00.000001Z", 1), ("2025-05-31T12:00:00.123456789Z", 123_456),
                      ("2025-05-31T12:00:00.999999999+00:00", 999_999)])
    func fractions(text: String, micros: Int64) {
        #expect(RFC3339.microseconds(from: text) == Self.noon + micros)
    }

    @Test("Malformed or impossible timestamps are refused",
          arguments: ["2025-05-31T12:00:00", "2025-05-31 12:00:00Z", "2025-05-31T12:00:00.Z",
                      "2025-05-31T12:00:00.1234567890Z", "2025-02-29T00:00:00Z", "2025-04-31T00:00:00Z",
                      "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z", "2025-05-31T24:00:00Z", "2025-05-31T12:60:00Z",
                      "2025-05-31T23:59:60Z", "2025-05-31T12:00:00+2:00", "2025-05-31T12:00:00+24:00",
                      "2025-05-31T12:00:00+02:60", "2025-5-31T12:00:00Z", "2025-05-31T12:00:00Zx",
                      "2025-05-31T12:00:00+0200", "", "yesterday", "2025-05-31", "2025-05-31T12:00Z"])
    func refused(text: String) {
        #expect(RFC3339.microseconds(from: text) == nil)
    }

    @Test("February 29 exists in leap years only, including the 400-year rule")
    func leapYears() {
        #expect(RFC3339.microseconds(from: "2024-02-29T00:00:00Z") != nil)
        #expect(RFC3339.microseconds(from: "2000-02-29T00:00:00Z") != nil)
        #expect(RFC3339.microseconds(from: "1900-02-29T00:00:00Z") == nil)
    }

    @Test("Day counts agree with known dates on both sides of the epoch")
    func dayCounts() {
        #expect(CivilDate.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.daysSinceEpoch(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilDate.daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
        #expect(RFC3339.microseconds(from: "1970-01-01T00:00:00Z") == 0)
        #expect(RFC3339.microseconds(from: "1969-12-31T23:59:59.5Z") == -500_000)
    }

    @Test("Formatting is the inverse of parsing for UTC timestamps",
          arguments: ["2025-05-31T12:00:00Z", "1969-12-31T23:59:59.5Z", "2024-02-29T23:59:59.000001Z",
                      "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z"])
    func formatting(text: String) throws {
        let micros = try #require(RFC3339.microseconds(from: text))
        #expect(RFC3339.string(microseconds: micros) == text)
    }

    /// Found by `make fuzz` (rfc3339): the offset can carry the last second of 9999 into the year 10000 in UTC,
    /// which no four-digit year names; such a time parses, formats with five digits and is refused by the window.
    @Test("A time whose offset carries it past 9999-12-31 in UTC parses, formats with a five-digit year, and is time_in_future")
    func pastYear9999() throws {
        let micros = try #require(RFC3339.microseconds(from: "9999-12-31T23:59:59.0-23:00"))
        #expect(RFC3339.string(microseconds: micros) == "10000-01-01T22:59:59Z")
        let result = Fixture.validate(EventJSON.impression.with("time", #""9999-12-31T23:59:59.0-23:00""#))
        #expect(result.failureValue?.code == .timeInFuture)
    }

    @Test("A validated time keeps microseconds exactly")
    func microsecondsKept() throws {
        let event = try #require(Fixture.accepted(.impression.with("time", #""2025-05-31T12:00:00.654321Z""#)))
        #expect(event.timeMicroseconds == Self.noon + 654_321)
        #expect(EpochTime.date(microseconds: event.timeMicroseconds) == event.time)
    }

    @Test("An integer of epoch milliseconds is a time")
    func epochMilliseconds() throws {
        let event = try #require(Fixture.accepted(.impression.with("time", "1748692800123")))
        #expect(event.timeMicroseconds == Self.noon + 123_000)
    }

    @Test("A numeric time with a fraction or exponent, or a string of digits, is invalid_time",
          arguments: ["1748692800000.5", "1748692800000.0", "1.7486928e12", #""1748692800000""#,
                      #""2025-05-31T12:00:00""#, "99999999999999999999"])
    func invalidTimes(json: String) throws {
        let rejection = try #require(Fixture.rejected(.impression.with("time", json)))
        #expect(rejection.code == .invalidTime)
        #expect(rejection.message.hasPrefix("field \"time\" is "))
    }

    @Test("A numeric time of thousands of digits is echoed in the message cut to 64 characters")
    func longNumericTimeIsCut() throws {
        let digits = String(repeating: "7", count: 5000)
        let rejection = try #require(Fixture.rejected(.impression.with("time", digits)))
        #expect(rejection.code == .invalidTime)
        #expect(rejection.message.contains(String(repeating: "7", count: 64) + "…"))
        #expect(!rejection.message.contains(String(repeating: "7", count: 65)))
        #expect(rejection.message.count < 200)
    }

    @Test("A time of another JSON type is invalid_type, and an absent or empty one missing_field")
    func timeTypes() {
        #expect(Fixture.rejected(.impression.with("time", "true"))?.code == .invalidType)
        #expect(Fixture.rejected(.impression.without("time"))?.code == .missingField)
        #expect(Fixture.rejected(.impression.with("time", #""""#))?.code == .missingField)
    }

    @Test("Epoch microseconds survive the round trip through Date", arguments: [
        Int64(0), 1_748_692_800_123_457, -1_000_001, 2_000_000_000_999_999, -1_262_304_000_000_001])
    func epochRoundTrip(micros: Int64) {
        #expect(EpochTime.microseconds(of: EpochTime.date(microseconds: micros)) == micros)
    }
}
