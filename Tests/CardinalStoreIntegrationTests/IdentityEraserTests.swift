import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// `cardinal.erase_identity` through `IdentityEraser`: what goes, what stays, the audit row, who may run it,
/// and that it finds an identity through indexes rather than by reading every partition.
@Suite struct IdentityEraserTests {
    /// A migrated database with the app "shop", and a writer.
    private struct Shop {
        let database: TestDatabase
        let connection: PostgresConnection
        let appID: Int64

        init() throws {
            database = try TestDatabase.migrated(prefix: "erase")
            connection = try database.connect()
            appID = try AppStore(connection: connection).create(name: "shop").id
        }

        func write(_ events: [Event], rejections raws: [String] = []) throws {
            let rejections = raws.enumerated().map { index, raw in
                RejectionRecord(appID: appID, requestID: "r", receivedAt: .now, rejection: EventRejection(
                    index: index, id: nil, code: .invalidValue, message: "bad", rawJSON: raw))
            }
            _ = try EventWriter(connection: try database.connect()).write(
                events: events.map { EventRecord(appID: appID, event: $0, receivedAt: .now) }, rejections: rejections
            )
        }

        func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> Int64 {
            try connection.query(sql, parameters).first?.decode(Int64.self, at: 0) ?? -1
        }
    }

    private static func impression(user: String?, device: String?, daysAgo: Double = 1) -> Event {
        Event(id: UUID(), type: .impression, channel: .contentCard, time: .now.addingTimeInterval(-daysAgo * 86_400),
              userID: user, deviceID: device, sessionID: "s", source: .campaign("spring"))
    }

    @Test("Erasing a user deletes its events on every device and its rejected events, and nobody else's")
    func userErasureTakesOnlyThatUser() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        try shop.write(
            [Self.impression(user: "u1", device: "d1"), Self.impression(user: "u1", device: "d2", daysAgo: 45),
             Self.impression(user: "u10", device: "d1"), Self.impression(user: nil, device: "u1")],
            rejections: [#"{"user_id":"u1","type":"nope"}"#, #"{"user_id":"u10"}"#, #"{"device_id":"u1"}"#,
                         #"["u1", 1"#, #"u1 without quotes"#]
        )

        let record = try IdentityEraser(connection: shop.connection).erase(ErasureTarget(kind: .user, id: "u1"), appID: shop.appID)

        #expect(record.events == 2)
        // The JSON object naming user_id u1, and the malformed body holding "u1" as a JSON string; not the
        // device "u1", not u10, not a bare u1 in text that is no JSON string.
        #expect(record.rejectedEvents == 2)
        #expect(try shop.count("select count(*) from cardinal.events where user_id = 'u1'") == 0)
        #expect(try shop.count("select count(*) from cardinal.events") == 2)
        #expect(try shop.count("select count(*) from cardinal.rejected_events") == 3)
        #expect(record.erasureID != nil)
    }

    @Test("Erasing a device deletes its anonymous events and those of users on it, and rebuilds those users' state")
    func deviceErasureRequeuesItsUsers() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        try shop.write([Self.impression(user: nil, device: "d1"), Self.impression(user: "u1", device: "d1"),
                        Self.impression(user: "u1", device: "d2"), Self.impression(user: "u2", device: "d3")])
        #expect(try ReportStateStore(connection: shop.connection).fold() == 4)

        let record = try IdentityEraser(connection: shop.connection).erase(ErasureTarget(kind: .device, id: "d1"), appID: shop.appID)

        #expect(record.events == 2)
        // u1's event on d2 is queued again; its state went, with the anonymous device's, which was merged into
        // it (u1 logged in on d1 as a new user, 0032): one row.
        #expect(record.requeuedEvents == 1)
        #expect(record.reportUserState == 1)
        #expect(try shop.count("select count(*) from cardinal.report_fold_queue where user_key = 'u1'") == 1)
        #expect(try shop.count("select count(*) from cardinal.report_user_state where user_key in ('u1', 'device:d1')") == 0)
        #expect(try shop.count("select sum(impressions) from cardinal.report_daily_count_facts") == 2)
    }

    @Test("The audit row keeps the counts and a salted hash, never the id, and the reader cannot read the salt")
    func auditRowKeepsNoIdentity() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        let id = "person-\(UUID().uuidString)"
        try shop.write([Self.impression(user: id, device: "d1")])

        let record = try IdentityEraser(connection: shop.connection).erase(ErasureTarget(kind: .user, id: id), appID: shop.appID)

        let row = try shop.connection.query("select e::text from cardinal.erasures as e")
        #expect(row.count == 1)
        #expect(try !(row[0].decode(String.self, at: 0)).contains(id))
        #expect(try shop.count(
            "select count(*) from cardinal.erasures where identity_hash = cardinal.erasure_identity_hash('user', $1) and events = 1",
            [id]) == 1)
        // Salted: not the bare SHA-256 of the id, and a device of the same id hashes differently.
        #expect(record.identityHash != SHA256.hash(utf8: "user:\(id)"))
        #expect(try shop.count(
            "select count(*) from cardinal.erasures where identity_hash = cardinal.erasure_identity_hash('device', $1)",
            [id]) == 0)

        let reader = try shop.database.connect()
        try reader.execute("set role cardinal_reader")
        #expect(try reader.query("select count(*) from cardinal.erasures")[0].decode(Int64.self, at: 0) == 1)
        let error = #expect(throws: PostgresError.self) { try reader.query("select salt from cardinal.erasure_salt") }
        #expect(error?.sqlState == .insufficientPrivilege)
    }

    @Test("Neither the ingest nor the reader role may erase")
    func onlyTheOwnerErases() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        for role in ["cardinal_ingest", "cardinal_reader"] {
            let connection = try shop.database.connect()
            try connection.execute("set role \(role)", [])
            let error = #expect(throws: PostgresError.self) {
                try IdentityEraser(connection: connection).erase(ErasureTarget(kind: .user, id: "u1"), appID: shop.appID)
            }
            #expect(error?.sqlState == .insufficientPrivilege, "\(role)")
        }
    }

    @Test("A dry run returns the counts and leaves every row and the audit table as they were")
    func dryRunChangesNothing() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        try shop.write([Self.impression(user: "u1", device: "d1"), Self.impression(user: "u1", device: "d1")],
                       rejections: [#"{"user_id":"u1"}"#])
        _ = try ReportStateStore(connection: shop.connection).fold()

        let record = try IdentityEraser(connection: shop.connection)
            .erase(ErasureTarget(kind: .user, id: "u1"), appID: shop.appID, dryRun: true)

        #expect(record.events == 2 && record.rejectedEvents == 1 && record.reportUserState == 1)
        #expect(record.erasureID == nil)
        #expect(try shop.count("select count(*) from cardinal.events") == 2)
        #expect(try shop.count("select count(*) from cardinal.rejected_events") == 1)
        #expect(try shop.count("select count(*) from cardinal.report_user_state") == 1)
        #expect(try shop.count("select count(*) from cardinal.erasures") == 0)
    }

    @Test("An empty id and an unknown app are refused with invalid_parameter_value")
    func badRequestsAreRefused() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        let eraser = IdentityEraser(connection: shop.connection)
        for (target, app) in [(ErasureTarget(kind: .user, id: ""), shop.appID), (ErasureTarget(kind: .device, id: "d"), 999)] {
            let error = #expect(throws: PostgresError.self) { try eraser.erase(target, appID: app) }
            #expect(error?.sqlState == .invalidParameterValue)
        }
    }

    @Test("An erasure finds the identity's events by index in every partition, never by reading a whole partition")
    func erasureProbesIndexes() throws {
        let shop = try Shop()
        defer { shop.database.drop() }
        // 60,000 events of 3,000 users over three months, analyzed, so that the planner has real statistics.
        try shop.connection.executeScript(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, campaign_id)
            select \(shop.appID), gen_random_uuid(), 'impression', 'banner', now() - (g % 80) * interval '1 day',
                   case when g % 5 <> 0 then 'u' || g % 3000 end, 'd' || g % 4000, 'c'
            from generate_series(1, 60000) as g;
            analyze cardinal.events;
            """
        )
        let filled = try shop.connection.query("select distinct tableoid::regclass::text from cardinal.events")
            .map { try $0.decode(String.self, at: 0).replacing("cardinal.", with: "") }
        #expect(filled.count >= 3)
        for (kind, column, id) in [("user", "user_key", "u7"), ("device", "device_id", "d7"), ("device", "user_key", "device:d7")] {
            let plan = try shop.connection.query(
                "explain (format text) select * from cardinal.events where app_id = $1 and \(column) = $2", [shop.appID, id]
            ).map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
            // Empty partitions are "scanned" at no cost (no page to read); every partition with rows is probed.
            for partition in filled {
                #expect(!plan.contains("Seq Scan on \(partition) "), "\(kind) \(column): \(plan)")
                #expect(plan.contains(" on \(partition) "), "\(kind) \(column): the plan visits \(partition)")
            }
        }
        let record = try IdentityEraser(connection: shop.connection).erase(ErasureTarget(kind: .device, id: "d7"), appID: shop.appID)
        #expect(record.events == 15)
    }
}
