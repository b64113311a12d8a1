import Foundation
import Testing

/// The happy path through the real daemon into the real table: every field, every body format.
@Suite struct IngestEndToEndTests {
    @Test("A valid batch lands with every field of the API in its column")
    func everyFieldLandsInItsColumn() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let tables = try fixture.tables()
        let appID = try tables.appID(named: IngestFixture.appName)
        let before = try tables.connection.query("select now()")[0].decode(Date.self, at: 0)

        let click = UUID(), banner = UUID(), conversion = UUID()
        let clickTime = Self.rfc3339HoursAgo(5, offset: "+02:00")
        let bannerTime = EpochMilliseconds.hoursAgo(4)
        let conversionTime = Self.rfc3339HoursAgo(3, offset: "Z")
        let properties = #"{"screen":"home","rank":3,"tags":["a","b"],"nested":{"ok":true}}"#
        let events = [
            TestEvent(id: click, json: """
                {"id":"\(click.lowercased)","type":"click","channel":"in_app_message","time":"\(clickTime)",\
                "user_id":"user-42","device_id":"device-7","session_id":"session-3","campaign_id":"campaign-spring",\
                "variant_id":"variant-b","message_id":"iam-99","button_id":"1","url":"https://example.com/offer?x=1",\
                "platform":"ios","sdk_version":"9.1.0","app_version":"4.2.1","os_version":"17.2","test":true,\
                "properties":\(properties)}
                """),
            TestEvent(id: banner, json: """
                {"id":"\(banner.uuidString)","type":"impression","channel":"banner","time":\(bannerTime),\
                "device_id":"device-8","canvas_id":"canvas-1","canvas_step_id":"step-2","control":true,\
                "placement_id":"home-top","platform":"android","test":false}
                """),
            TestEvent(id: conversion, json: """
                {"id":"\(conversion.lowercased)","type":"conversion","time":"\(conversionTime)","user_id":"user-42",\
                "campaign_id":"campaign-spring","name":"purchase","product_id":"SKU-9","price":9.995,"quantity":2,\
                "currency":"EUR","order_id":"ord-1"}
                """),
        ]

        let result = try fixture.client(of: daemon).ingest(events)

        #expect(result.counts == .accepted(3))
        #expect(result.errors.isEmpty)
        try Self.expectRow(tables, click, appID: appID, [
            "type": "click", "channel": "in_app_message", "user_id": "user-42", "device_id": "device-7",
            "session_id": "session-3", "campaign_id": "campaign-spring", "canvas_id": nil, "canvas_step_id": nil,
            "variant_id": "variant-b", "control": "f", "message_id": "iam-99", "placement_id": nil, "button_id": "1",
            "url": "https://example.com/offer?x=1", "platform": "ios", "sdk_version": "9.1.0", "app_version": "4.2.1",
            "os_version": "17.2", "test": "t", "conversion_name": nil, "value": nil, "currency": nil,
            "product_id": nil, "price": nil, "quantity": nil, "order_id": nil, "user_key": "user-42",
        ])
        try Self.expectRow(tables, banner, appID: appID, [
            "type": "impression", "channel": "banner", "user_id": nil, "device_id": "device-8", "session_id": nil,
            "campaign_id": nil, "canvas_id": "canvas-1", "canvas_step_id": "step-2", "variant_id": nil,
            "control": "t", "message_id": nil, "placement_id": "home-top", "button_id": nil, "url": nil,
            "platform": "android", "sdk_version": nil, "app_version": nil, "os_version": nil, "test": "f",
            "conversion_name": nil, "value": nil, "currency": nil, "product_id": nil, "price": nil, "quantity": nil,
            "order_id": nil, "user_key": "device:device-8",
        ])
        try Self.expectRow(tables, conversion, appID: appID, [
            "type": "conversion", "channel": nil, "user_id": "user-42", "device_id": nil, "session_id": nil,
            "campaign_id": "campaign-spring", "canvas_id": nil, "canvas_step_id": nil, "variant_id": nil,
            "control": "f", "message_id": nil, "placement_id": nil, "button_id": nil, "url": nil, "platform": nil,
            "sdk_version": nil, "app_version": nil, "os_version": nil, "test": "f", "conversion_name": "purchase",
            "value": "19.99", "currency": "EUR", "product_id": "SKU-9", "price": "9.995", "quantity": "2",
            "order_id": "ord-1", "user_key": "user-42",
        ])
        #expect(try tables.eventMatches(id: click, "time = $2::timestamptz", [clickTime]))
        #expect(try tables.eventMatches(id: banner, "(extract(epoch from time) * 1000)::bigint = $2", [bannerTime]))
        #expect(try tables.eventMatches(id: conversion, "time = $2::timestamptz", [conversionTime]))
        #expect(try tables.eventMatches(id: click, "properties = $2::jsonb", [properties]))
        #expect(try tables.eventMatches(id: banner, "properties is null"))
        for id in [click, banner, conversion] {
            #expect(try tables.eventMatches(id: id, "received_at >= $2 and received_at > time", [before]))
        }
        #expect(try tables.eventCount() == 3)
    }

    @Test("An NDJSON body is stored event by event, a bad line rejected by its index among the non-blank lines")
    func ndjsonBodies() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let first = TestEvent.impression(), second = TestEvent.impression(user: "user-2")
        let badLine = #"{"id":"9b2f0c3e-5d1a-4f7e-8c21-3a4b5c6d7e8f","type":"#
        let body = Array("\(first.json)\r\n\n   \n\(badLine)\n\(second.json)".utf8)

        let result = try IngestResult(try fixture.client(of: daemon).post(body: body, contentType: "application/x-ndjson"))

        #expect(result.counts == .init(accepted: 2, duplicates: 0, rejected: 1))
        #expect(result.errors.map(\.index) == [1])
        #expect(result.errors.map(\.code) == ["invalid_json"])
        let tables = try fixture.tables()
        #expect(try tables.storedIDs() == [first.id, second.id])
        let rejections = try tables.rejections()
        #expect(rejections.map(\.index) == [1])
        #expect(rejections.map(\.raw) == [badLine])
    }

    @Test("Gzip bodies, JSON and NDJSON, are inflated and stored")
    func gzipBodies() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let jsonEvents = TestEvent.impressions(40)
        let ndjsonEvents = TestEvent.impressions(25, user: "user-9")

        let jsonResult = try client.ingest(jsonEvents, format: .json, gzip: true)
        let ndjsonResult = try client.ingest(ndjsonEvents, format: .ndjson, gzip: true)

        #expect(jsonResult.counts == .accepted(40))
        #expect(ndjsonResult.counts == .accepted(25))
        #expect(try fixture.tables().storedIDs() == Set((jsonEvents + ndjsonEvents).map(\.id)))
    }

    /// `hours` ago as RFC 3339 with microseconds, written with `offset` ("Z" or "+02:00").
    private static func rfc3339HoursAgo(_ hours: Double, offset: String) -> String {
        let seconds = (Date.now.timeIntervalSince1970 - hours * 3600).rounded(.down)
        let shift = offset == "Z" ? 0 : 2 * 3600.0
        var text = EpochMilliseconds.rfc3339(Date(timeIntervalSince1970: seconds + shift))
        text.removeLast(5) // ".000Z"
        return text + ".123456" + offset
    }

    /// Checks every column of the row of `id`; the columns whose text depends on the session (time,
    /// received_at) or on jsonb's formatting (properties) are checked separately, in SQL.
    private static func expectRow(
        _ tables: EventTables, _ id: UUID, appID: Int64, _ expected: [String: String?],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let row = try #require(try tables.row(id: id), "event \(id) is not stored", sourceLocation: sourceLocation)
        let checkedInSQL: Set = ["time", "received_at", "properties", "stored_xid"]
        #expect(Set(row.keys) == Set(expected.keys).union(checkedInSQL).union(["app_id", "id"]),
                "the test must cover every column", sourceLocation: sourceLocation)
        #expect(row["app_id"] == .some(String(appID)), sourceLocation: sourceLocation)
        #expect(row["id"] == .some(id.lowercased), sourceLocation: sourceLocation)
        // The id of the transaction that stored it, for the report-state fold.
        #expect(row["stored_xid"].flatMap { $0 }.flatMap { Int64($0) } != nil, sourceLocation: sourceLocation)
        for (column, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(row[column] == .some(value), "column \(column)", sourceLocation: sourceLocation)
        }
    }
}
