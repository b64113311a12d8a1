import Foundation
import Testing

/// The safety net behind validation: an event only the database refuses is rejected alone.
@Suite struct DatabaseRefusalTests {
    @Test("An event only the database refuses is rejected as database_refused while its neighbours are stored")
    func refusedEventRejectedAlone() throws {
        let fixture = try IngestFixture()
        // Validation now refuses everything the schema does, so the test's own database gets a rule that
        // validation does not know.
        try fixture.database.connect().executeScript("""
            alter table cardinal.events add constraint e2e_no_forbidden_user check (user_id <> 'forbidden')
            """)
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let good = TestEvent.impressions(9)
        let bad = TestEvent.impression(user: "forbidden")
        let batch = Array(good[..<6]) + [bad] + Array(good[6...])

        let reply = try fixture.client(of: daemon).post(body: TestEvent.jsonBatch(batch))
        let result = try IngestResult(reply)

        #expect(reply.status == 200)
        #expect(result.counts == .init(accepted: 9, duplicates: 0, rejected: 1))
        let error = try #require(result.errors.first)
        #expect(error.index == 6)
        #expect(error.id == bad.id.uuidString.lowercased())
        #expect(error.code == "database_refused")
        #expect(error.message.contains("e2e_no_forbidden_user"))
        #expect(!error.message.contains("forbidden'"), "the row data of the DETAIL stays out of the answer")
        let tables = try fixture.tables()
        #expect(try tables.storedIDs() == Set(good.map(\.id)))
        let stored = try tables.rejections()
        #expect(stored.map(\.code) == ["database_refused"])
        #expect(stored.first?.eventID == bad.id.uuidString.lowercased())
        #expect(stored.first?.index == 6)
        #expect(stored.first?.raw.contains("forbidden") == true, "the event itself is kept as evidence")
    }

    @Test("An event older than the database's retention but within the daemon's is time_too_old, not a failed batch")
    func eventOutsidePartitionsIsTooOld() throws {
        let fixture = try IngestFixture()
        try fixture.database.connect().executeScript("update cardinal.settings set retention_days = 30")
        // The daemon validates with 400 days, as one started during an outage does until it reads the settings.
        let daemon = try fixture.startDaemon(["--retention-days", "400"])
        defer { daemon.stop() }
        let good = TestEvent.impressions(3)
        let old = TestEvent.impression(time: EpochMilliseconds.hoursAgo(90 * 24))

        let reply = try fixture.client(of: daemon).post(body: TestEvent.jsonBatch([good[0], old] + good[1...]))
        let result = try IngestResult(reply)

        #expect(reply.status == 200)
        #expect(result.counts == .init(accepted: 3, duplicates: 0, rejected: 1))
        #expect(result.errors.map(\.code) == ["time_too_old"])
        #expect(result.errors.map(\.index) == [1])
        #expect(try fixture.tables().storedIDs() == Set(good.map(\.id)))
    }
}
