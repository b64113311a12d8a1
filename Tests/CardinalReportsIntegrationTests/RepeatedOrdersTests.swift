import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite struct RepeatedOrdersTests {
    /// c1 (content cards, variant v1) with purchase as its conversion event and a 3-day window; u1, u2 and u3
    /// each see a card on day 10. Times are UTC before 15:00, so each lies on the Tokyo report day of the same
    /// number. Two batches: the first is folded, the second stays pending.
    private static func scenario() throws -> ReportScenario {
        let scenario = try purchaseCampaign()
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u3"),
            // u1's order o1, then the same order logged again 5 s later in the same batch.
            purchase(at: scenario.time(10, "02:00:00"), user: "u1", value: 20, order: "o1"),
            purchase(at: scenario.time(10, "02:00:05"), user: "u1", value: 20, order: "o1"),
            // u2's order o2 of two products: both count.
            purchase(at: scenario.time(10, "03:00"), user: "u2", value: 10, order: "o2", product: "p1"),
            purchase(at: scenario.time(10, "03:00"), user: "u2", value: 3, order: "o2", product: "p2"),
            // u3's order o3 on day 11.
            purchase(at: scenario.time(11, "03:00"), user: "u3", value: 7, order: "o3"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        try scenario.write([
            // o1 once more, a day later and after its first was folded.
            purchase(at: scenario.time(11, "02:00"), user: "u1", value: 20, order: "o1"),
            // o3 again, logged earlier than its first but stored after it: still the repeat.
            purchase(at: scenario.time(10, "05:00"), user: "u3", value: 7, order: "o3"),
            // A purchase without an order always counts.
            purchase(at: scenario.time(11, "04:00"), user: "u1", value: 1, order: nil),
        ])
        return scenario
    }

    /// A scenario whose campaign c1 has purchase as its conversion event and a 3-day window.
    private static func purchaseCampaign() throws -> ReportScenario {
        let scenario = try ReportScenario()
        do {
            try scenario.settings("c1", CampaignSettingsUpdate(
                conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d"))
            ))
        } catch {
            scenario.drop()
            throw error
        }
        return scenario
    }

    @Test("Revenue counts each order once, the first stored, folded or pending, as the reference does")
    func revenueCountsAnOrderOnce() throws {
        let scenario = try Self.scenario()
        defer { scenario.drop() }
        try scenario.beforeAndAfterFold { _ in
            let rows = try scenario.session.campaignConversions(scenario.scope(10, 30))
            // u1: o1's 20 once, plus 1 without an order; u2: 10 + 3 (two products); u3: o3's 7 once.
            // 21 + 13 + 7 = 41 USD over 3 recipients (counting every repeat would give 88).
            #expect(rows.map(\.converters) == [3])
            #expect(rows.first?.revenue.map(\.currency) == ["USD"])
            #expect(rows.first?.revenue.compactMap { Decimal(string: $0.amount) } == [41])
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
        }
    }

    @Test("Repeats are a repeated_conversions finding of the app, with their share of the ordered conversions")
    func repeatsAreAFinding() throws {
        let scenario = try Self.scenario()
        defer { scenario.drop() }
        let found = try scenario.session.anomalies(scenario.scope(9, 12)).filter { $0.kind == .repeatedConversions }
        // Ordered conversions on days 9–12: o1 three times, o2's two products, o3 twice: 7, of which 3 repeat
        // (o1 twice, o3 once), by u1 and u3. One group: every event is iOS, SDK 5.0, app 1.0.
        #expect(found.count == 1)
        let finding = try #require(found.first)
        #expect(finding.severity == .warning)
        #expect(finding.campaignID == nil && finding.channel == nil)
        #expect(finding.platform == "ios" && finding.sdkVersion == "5.0" && finding.appVersion == "1.0")
        #expect(finding.evidence["conversions"] == 7)
        #expect(finding.evidence["repeated_conversions"] == 3)
        #expect(finding.evidence["share"] == 3.0 / 7.0)
        #expect(finding.evidence["repeated_orders"] == 2)
        #expect(finding.evidence["users"] == 2)
        // Only day 11: o1's third and o3's first, one repeat of one.
        let day11 = try scenario.session.anomalies(scenario.scope(11, 11)).first { $0.kind == .repeatedConversions }
        #expect(day11?.evidence["conversions"] == 2)
        #expect(day11?.evidence["repeated_conversions"] == 1)
        // App-wide: a report of one campaign leaves it out.
        let ofCampaign = try scenario.session.anomalies(scenario.scope(9, 12, campaign: "c1"))
        #expect(!ofCampaign.contains { $0.kind == .repeatedConversions })
    }

    @Test("A duplicate of a stored event is not a repeat, a test order is apart, and erasure takes the records")
    func duplicatesAndErasure() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let first = purchase(at: scenario.time(10, "02:00"), user: "u1", value: 20, order: "o1")
        #expect(try scenario.write([first]) == [true])
        // The same event again (the SDK's retry of a batch): skipped by its id, so no repeat.
        #expect(try scenario.write([first]) == [false])
        #expect(try records() == "1 0")
        // A test purchase of the same order is an order of its own.
        var test = purchase(at: scenario.time(10, "02:00"), user: "u1", value: 20, order: "o1")
        test.test = true
        try scenario.write([test])
        #expect(try records() == "2 0")
        try scenario.write([purchase(at: scenario.time(10, "02:01"), user: "u1", value: 20, order: "o1")])
        #expect(try records() == "2 1")
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u1')", [scenario.app.id])
        #expect(try records() == "0 0")

        func records() throws -> String {
            let row = try #require(try scenario.connection.query(
                """
                select (select count(*) from cardinal.conversion_orders),
                       (select count(*) from cardinal.repeated_order_conversions)
                """
            ).first)
            return "\(try row.decode(Int64.self, at: 0)) \(try row.decode(Int64.self, at: 1))"
        }
    }

    @Test("An order whose first conversion is erased passes to its repeat stored next, whose value then counts")
    func erasedFirstPassesToTheNextRepeat() throws {
        let scenario = try Self.purchaseCampaign()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2"),
            purchase(at: scenario.time(10, "02:00"), user: "u1", value: 20, order: "o1"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        // Two repeats by u2, the later one stored first.
        try scenario.write([purchase(at: scenario.time(10, "04:00"), user: "u2", value: 35, order: "o1")])
        try scenario.write([purchase(at: scenario.time(10, "03:00"), user: "u2", value: 30, order: "o1")])
        #expect(try revenue() == [20])
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u1')", [scenario.app.id])
        // u1 and its 20 are gone; o1's first is now u2's 35, the repeat stored first, not the earliest logged.
        try scenario.beforeAndAfterFold { (_: Bool) throws in
            #expect(try revenue() == [35])
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
        }
        let repeats = try scenario.connection.query("select count(*) from cardinal.repeated_order_conversions")
        #expect(try repeats.first?.decode(Int64.self, at: 0) == 1)

        func revenue() throws -> [Decimal] {
            try scenario.session.campaignConversions(scenario.scope(10, 30)).first?.revenue
                .compactMap { Decimal(string: $0.amount) } ?? []
        }
    }

    @Test("An erased first's heir logged by a device merged into a user counts once, under that user")
    func heirOfAMergedDeviceCountsOnce() throws {
        let scenario = try Self.purchaseCampaign()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            purchase(at: scenario.time(10, "02:00"), user: "u1", value: 20, order: "o1"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        // Device d2 sees the card and repeats o1 anonymously, then logs in as u2, new then: d2 merges into u2.
        // It also buys something else for 5, without an order.
        try scenario.write([
            event(.impression, at: scenario.time(10, "00:40"), device: "d2"),
            anonymously(purchase(at: scenario.time(10, "00:50"), user: "u2", value: 35, order: "o1")),
            anonymously(purchase(at: scenario.time(10, "00:55"), user: "u2", value: 5, order: nil)),
            event(.impression, at: scenario.time(10, "01:30"), user: "u2", device: "d2"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u1')", [scenario.app.id])
        // o1 passes to d2's 35, which u2's state holds: 35 + 5 once each, before the fold and after it.
        try scenario.beforeAndAfterFold { (_: Bool) throws in
            let rows = try scenario.session.campaignConversions(scenario.scope(10, 30))
            #expect(rows.first?.revenue.compactMap { Decimal(string: $0.amount) } == [40])
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
        }
    }

    @Test("When retention drops an order's first, its repeat stored next becomes the first and counts")
    func retentionPassesAnOrderToItsRepeat() throws {
        let scenario = try Self.purchaseCampaign()
        defer { scenario.drop() }
        // o1 first logged 140 days ago, in a month a 60-day retention drops; u2 repeats it on day 10.
        try scenario.write([purchase(at: scenario.time(-80, "02:00"), user: "u1", value: 20, order: "o1")])
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u2"),
            purchase(at: scenario.time(10, "02:00"), user: "u2", value: 35, order: "o1"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try scenario.session.campaignConversions(scenario.scope(10, 30)).first?.revenue.isEmpty == true)
        let dropped = try scenario.connection.query(
            "select * from cardinal.drop_expired_event_partitions(interval '60 days')")
        #expect(!dropped.isEmpty)
        try scenario.beforeAndAfterFold { (_: Bool) throws in
            let rows = try scenario.session.campaignConversions(scenario.scope(10, 30))
            #expect(rows.first?.revenue.compactMap { Decimal(string: $0.amount) } == [35])
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
        }
    }
}

/// `purchase` logged by device d2 before any login.
private func anonymously(_ purchase: Event) -> Event {
    var anonymous = purchase
    anonymous.userID = nil
    anonymous.deviceID = "d2"
    return anonymous
}

/// A purchase of `value` USD by `user`, of an order and product when given.
private func purchase(at time: Date, user: String, value: Decimal, order: String?, product: String? = nil) -> Event {
    var purchase = conversion("purchase", at: time, user: user, value: value, currency: "USD")
    purchase.orderID = order
    purchase.productID = product
    return purchase
}
