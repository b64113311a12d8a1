import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

@Suite struct EventWriterTests {
    private let now = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-29 UTC

    private func record(_ id: UUID = UUID(), app: Int64, type: EventType = .impression, time: Date? = nil) -> EventRecord {
        EventRecord(
            appID: app,
            event: Event(id: id, type: type, channel: .contentCard, time: time ?? now, userID: "u1",
                         source: .campaign("welcome"), variantID: "v1"),
            receivedAt: now
        )
    }

    private func setUp() throws -> (TestDatabase, PostgresConnection, App) {
        let database = try TestDatabase.migrated(prefix: "writer")
        let connection = try database.connect()
        return (database, connection, try AppStore(connection: connection).create(name: "shop"))
    }

    @Test("Every field of an event lands in its typed column")
    func everyFieldLands() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        let id = UUID()
        let event = Event(
            id: id, type: .conversion, time: now, userID: "ü-user", deviceID: "d1", sessionID: "s1",
            source: .canvas(id: "cv", stepID: "step2"), variantID: "v2", messageID: "m1", placementID: "p1",
            buttonID: "0", url: "https://example.com/a?b=c\td", platform: .android, sdkVersion: "30.1.0",
            appVersion: "2.4", osVersion: "14", test: true, conversionName: "purchase",
            value: Decimal(string: "19.99"), currency: "EUR", productID: "SKU-1", price: Decimal(string: "9.995"),
            quantity: 2, orderID: "ord-7", propertiesJSON: #"{"sku":"A-1","n":2}"#
        )
        let inserted = try EventWriter(connection: try database.connect())
            .write(events: [EventRecord(appID: app.id, event: event, receivedAt: now)], rejections: [])
        #expect(inserted == [true])
        let rows = try connection.query(
            """
            select app_id, type, channel, time, user_id, device_id, session_id, campaign_id, canvas_id,
                   canvas_step_id, variant_id, control, message_id, placement_id, button_id, url, platform,
                   sdk_version, app_version, os_version, test, conversion_name, value::text, currency,
                   properties->>'sku', user_key, received_at, product_id, price::text, quantity::bigint, order_id
            from cardinal.events where id = $1
            """,
            [id]
        )
        let row = try #require(rows.first)
        #expect(try row.decode(Int64.self, at: 0) == app.id)
        #expect(try row.decode(String.self, at: 1) == "conversion")
        #expect(try row.decode(String?.self, at: 2) == nil)
        #expect(try row.decode(Date.self, at: 3) == now)
        #expect(try row.decode(String.self, at: 4) == "ü-user")
        #expect(try row.decode(String.self, at: 5) == "d1")
        #expect(try row.decode(String.self, at: 6) == "s1")
        #expect(try row.decode(String?.self, at: 7) == nil)
        #expect(try row.decode(String.self, at: 8) == "cv")
        #expect(try row.decode(String.self, at: 9) == "step2")
        #expect(try row.decode(String.self, at: 10) == "v2")
        #expect(try row.decode(Bool.self, at: 11) == false)
        #expect(try row.decode(String.self, at: 12) == "m1")
        #expect(try row.decode(String.self, at: 13) == "p1")
        #expect(try row.decode(String.self, at: 14) == "0")
        #expect(try row.decode(String.self, at: 15) == "https://example.com/a?b=c\td")
        #expect(try row.decode(String.self, at: 16) == "android")
        #expect(try row.decode(String.self, at: 17) == "30.1.0")
        #expect(try row.decode(String.self, at: 18) == "2.4")
        #expect(try row.decode(String.self, at: 19) == "14")
        #expect(try row.decode(Bool.self, at: 20) == true)
        #expect(try row.decode(String.self, at: 21) == "purchase")
        #expect(try row.decode(String.self, at: 22) == "19.99")
        #expect(try row.decode(String.self, at: 23) == "EUR")
        #expect(try row.decode(String.self, at: 24) == "A-1")
        #expect(try row.decode(String.self, at: 25) == "ü-user")
        #expect(try row.decode(Date.self, at: 26) == now)
        #expect(try row.decode(String.self, at: 27) == "SKU-1")
        #expect(try row.decode(String.self, at: 28) == "9.995")
        #expect(try row.decode(Int64.self, at: 29) == 2)
        #expect(try row.decode(String.self, at: 30) == "ord-7")
    }

    @Test("The staging table is empty after every batch, keeps its pages between batches, and is truncated when full")
    func stagingTableIsEmptiedByTheInsertAndTruncatedWhenFull() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        // The writer's own connection, read between its batches (the writer is not using it then).
        let writerConnection = try database.connect()
        let writer = EventWriter(connection: writerConnection)
        func staging() throws -> (rows: Int64, bytes: Int64) {
            let row = try #require(try writerConnection.query(
                "select count(*), pg_relation_size('pg_temp.event_staging') from pg_temp.event_staging"
            ).first)
            return (try row.decode(Int64.self, at: 0), try row.decode(Int64.self, at: 1))
        }

        #expect(try writer.write(events: [record(app: app.id)], rejections: []) == [true])
        let afterOne = try staging()
        #expect(afterOne.rows == 0)
        #expect(afterOne.bytes > 0)  // not truncated at commit

        let full = (0..<2048).map { _ in record(app: app.id) }
        #expect(try writer.write(events: full, rejections: []).allSatisfy { $0 })
        let afterFull = try staging()
        #expect(afterFull.rows == 0)
        #expect(afterFull.bytes > afterOne.bytes)

        // 2,049 rows staged: the next batch truncates the table first, so it holds that batch's page alone.
        #expect(try writer.write(events: [record(app: app.id)], rejections: []) == [true])
        #expect(try staging() == (rows: 0, bytes: 8192))
        #expect(try connection.query("select count(*) from cardinal.events").first?.decode(Int64.self, at: 0) == 2050)
    }

    @Test("The same batch written twice is stored once; the second time every event is a duplicate")
    func retriedBatchIsStoredOnce() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        let writer = EventWriter(connection: try database.connect())
        let batch = (0..<50).map { _ in record(app: app.id) }
        #expect(try writer.write(events: batch, rejections: []) == Array(repeating: true, count: 50))
        #expect(try writer.write(events: batch, rejections: []) == Array(repeating: false, count: 50))
        #expect(try connection.query("select count(*) from cardinal.events")[0].decode(Int.self, at: 0) == 50)
    }

    @Test("An event repeated inside one batch is stored once and counted once as a duplicate")
    func repeatInsideBatchIsOneDuplicate() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        let repeated = record(app: app.id)
        let inserted = try EventWriter(connection: try database.connect())
            .write(events: [repeated, record(app: app.id), repeated], rejections: [])
        #expect(inserted.filter { $0 }.count == 2)
        #expect(inserted[1])
        #expect(try connection.query("select count(*) from cardinal.events")[0].decode(Int.self, at: 0) == 2)
    }

    @Test("When two apps use the same event id, each event's result is its own: stored or duplicate")
    func sameIDInTwoAppsIsToldApart() throws {
        let (database, connection, shop) = try setUp()
        defer { database.drop() }
        let news = try AppStore(connection: connection).create(name: "news")
        let writer = EventWriter(connection: try database.connect())
        let shared = UUID()
        #expect(try writer.write(events: [record(shared, app: shop.id)], rejections: []) == [true])
        // The shop's event is a retry (duplicate); the news app's event with the same id is new. Matching the
        // returned rows on the id alone would swap the two answers.
        let inserted = try writer.write(events: [record(shared, app: shop.id), record(shared, app: news.id)], rejections: [])
        #expect(inserted == [false, true])
        #expect(try connection.query("select count(*) from cardinal.events where id = $1", [shared])[0]
            .decode(Int.self, at: 0) == 2)
    }

    @Test("Events far in the past and the future get their partitions on demand")
    func partitionsAreCreatedOnDemand() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        // The migration creates partitions from 400 days back to 2 months ahead; an installation that keeps
        // 30 years of events may receive one from 2000, and an event 11 months ahead is beyond the pre-made ones.
        try connection.execute("update cardinal.settings set retention_days = 20000")
        let old = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
        let future = Calendar(identifier: .gregorian).date(byAdding: .month, value: 11, to: .now)!
        let futureName = "cardinal.events_y" + future.formatted(.iso8601.year()) + "m"
            + future.formatted(.iso8601.month())
        let inserted = try EventWriter(connection: try database.connect())
            .write(events: [record(app: app.id, time: old), record(app: app.id, time: future)], rejections: [])
        #expect(inserted == [true, true])
        let partitions = try connection.query(
            """
            select count(*) from pg_inherits
            where inhparent = 'cardinal.events'::regclass
              and inhrelid::regclass::text in ('cardinal.events_y2000m01', $1)
            """,
            [futureName]
        )
        #expect(try partitions[0].decode(Int.self, at: 0) == 2)
    }

    @Test("Rejected events are kept with their reason, raw payload and request id")
    func rejectionsAreKept() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        let rejection = EventRejection(
            index: 3, id: "not-a-uuid", code: .invalidUUID, message: "field \"id\" is not a UUID",
            rawJSON: #"{"id":"not-a-uuid","type":"click"}"#
        )
        _ = try EventWriter(connection: try database.connect()).write(
            events: [],
            rejections: [RejectionRecord(appID: app.id, requestID: "req-1", receivedAt: now, rejection: rejection)]
        )
        let rows = try connection.query(
            "select app_id, event_index, event_id, code, message, raw, request_id from cardinal.rejected_events"
        )
        let row = try #require(rows.first)
        #expect(try row.decode(Int64.self, at: 0) == app.id)
        #expect(try row.decode(Int.self, at: 1) == 3)
        #expect(try row.decode(String.self, at: 2) == "not-a-uuid")
        #expect(try row.decode(String.self, at: 3) == "invalid_uuid")
        #expect(try row.decode(String.self, at: 5) == rejection.rawJSON)
        #expect(try row.decode(String.self, at: 6) == "req-1")
    }

    @Test("A batch written again, as a spool replay after a crash does, stores each rejection once")
    func rewrittenBatchStoresRejectionsOnce() throws {
        let (database, connection, app) = try setUp()
        defer { database.drop() }
        let rejections = (0..<3).map { index in
            RejectionRecord(
                appID: app.id, requestID: "req-7", receivedAt: now,
                rejection: EventRejection(index: index, id: nil, code: .invalidUUID, message: "bad", rawJSON: "{}")
            )
        }
        let writer = EventWriter(connection: try database.connect())
        _ = try writer.write(events: [], rejections: rejections)
        _ = try writer.write(events: [], rejections: rejections)
        // Another request's rejection at the same position is another rejection.
        _ = try writer.write(events: [], rejections: [
            RejectionRecord(appID: app.id, requestID: "req-8", receivedAt: now, rejection: rejections[0].rejection),
        ])

        let rows = try connection.query(
            "select request_id, event_index from cardinal.rejected_events order by request_id, event_index"
        ).map { "\(try $0.decode(String.self, at: 0))#\(try $0.decode(Int.self, at: 1))" }
        #expect(rows == ["req-7#0", "req-7#1", "req-7#2", "req-8#0"])
    }
}
