import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// `RetentionStore` over 0007, 0018 and 0022: what is listed as expired is what is dropped and deleted.
@Suite struct RetentionStoreTests {
    @Test("The expired partitions listed are exactly those dropped, and the events in them go")
    func listedPartitionsAreDropped() throws {
        let database = try TestDatabase.migrated(prefix: "retention")
        defer { database.drop() }
        let connection = try database.connect()
        let app = try AppStore(connection: connection).create(name: "shop")
        // 0007 made the partitions of the last 400 days; 120 days of retention leaves about ten of them expired.
        try connection.execute(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
            values ($1, gen_random_uuid(), 'impression', 'banner', now() - interval '200 days', 'old', 'c'),
                   ($1, gen_random_uuid(), 'impression', 'banner', now() - interval '1 day', 'new', 'c')
            """,
            [app.id]
        )
        try connection.execute("update cardinal.settings set retention_days = 120")
        let store = RetentionStore(connection: connection)

        let listed = try store.expiredPartitions()
        let cutoff = Date.now.addingTimeInterval(-120 * 86_400)
        #expect(listed.count >= 8)
        #expect(listed.allSatisfy { $0.to <= cutoff && $0.from < $0.to })
        #expect(listed.map(\.to) == listed.map(\.to).sorted())
        #expect(try store.dropExpiredPartitions() == listed.map(\.relation))
        #expect(try store.expiredPartitions().isEmpty)
        let users = try connection.query("select user_id from cardinal.events").map { try $0.decode(String.self, at: 0) }
        #expect(users == ["new"])
    }

    @Test("Expired rejected events are listed and deleted per app, or for every app")
    func rejectedEventsExpirePerApp() throws {
        let database = try TestDatabase.migrated(prefix: "retention")
        defer { database.drop() }
        let connection = try database.connect()
        let shop = try AppStore(connection: connection).create(name: "shop")
        let blog = try AppStore(connection: connection).create(name: "blog")
        try connection.execute(
            """
            insert into cardinal.rejected_events (app_id, received_at, event_index, code, message, raw)
            select app, now() - age, 0, 'bad', 'bad', '{}'
            from unnest(array[$1, $1, $1, $2, $2]::bigint[], array['500 days', '450 days', '1 day', '401 days',
                                                                   '2 days']::interval[]) as t (app, age)
            """,
            [shop.id, blog.id]
        )
        let store = RetentionStore(connection: connection)

        let listed = try store.expiredRejections()
        #expect(listed.map(\.appID) == [shop.id, blog.id].sorted())
        #expect(listed.map(\.count) == (shop.id < blog.id ? [2, 1] : [1, 2]))
        #expect(try store.expiredRejections(appID: shop.id).map(\.count) == [2])
        #expect(try store.deleteExpiredRejections(appID: shop.id) == 2)
        #expect(try store.expiredRejections().map(\.appID) == [blog.id])
        #expect(try store.deleteExpiredRejections() == 1)
        #expect(try connection.query("select count(*) from cardinal.rejected_events")[0].decode(Int64.self, at: 0) == 2)
    }
}
