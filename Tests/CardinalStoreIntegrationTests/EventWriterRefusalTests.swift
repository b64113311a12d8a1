import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Synchronization
import Testing
import TestSupport

/// What PostgreSQL refuses, and what the writer does about it: the limits validation mirrors, the partition
/// retry, the time range of partitions, and concurrent writers of the same events.
@Suite struct EventWriterRefusalTests {
    private let now = Date.now

    private func record(_ id: UUID = UUID(), app: Int64 = 1, event: (inout Event) -> Void = { _ in }) -> EventRecord {
        var value = Event(id: id, type: .impression, channel: .contentCard, time: now, userID: "u1",
                          source: .campaign("welcome"), variantID: "v1")
        event(&value)
        return EventRecord(appID: app, event: value, receivedAt: now)
    }

    /// `count` scalars drawn from the CJK block (3 bytes each in UTF-8), random so that PostgreSQL's
    /// compression of large index entries cannot shrink them.
    private func incompressible(_ count: Int, seed: UInt64) -> String {
        var state = seed
        var text = String.UnicodeScalarView()
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text.append(Unicode.Scalar(UInt32(0x4E00 + (state >> 33) % 0x5000))!)
        }
        return String(text)
    }

    private func refusal(of records: [EventRecord], in database: TestDatabase) throws -> PostgresError? {
        do {
            _ = try EventWriter(connection: try database.connect()).write(events: records, rejections: [])
            return nil
        } catch let error as PostgresError {
            return error
        }
    }

    @Test("Full-length ids in 3-byte UTF-8 overflow a B-tree entry (54000) but the validator's byte budget fits")
    func indexEntryBudget() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        let overflowing = record { event in
            event.userID = incompressible(511, seed: 1)
            event.source = .campaign(incompressible(255, seed: 2))
            event.variantID = incompressible(255, seed: 3)
        }
        let error = try #require(try refusal(of: [overflowing], in: database))
        #expect(error.sqlState == .programLimitExceeded)
        #expect(error.isDataError)
        // Exactly Limits.indexedTextMaxBytes: 1533 + 765 + 302 bytes.
        let atBudget = record { event in
            event.userID = incompressible(511, seed: 4)
            event.source = .campaign(incompressible(255, seed: 5))
            event.variantID = incompressible(100, seed: 6) + "vv"
        }
        #expect(atBudget.event.userID!.utf8.count + 765 + atBudget.event.variantID!.utf8.count == Limits.indexedTextMaxBytes)
        #expect(try refusal(of: [atBudget], in: database) == nil)
        let conversion = record { event in
            event.type = .conversion
            event.channel = nil
            event.source = nil
            event.variantID = nil
            event.userID = incompressible(511, seed: 7)
            event.conversionName = incompressible(255, seed: 8)
        }
        #expect(try refusal(of: [conversion], in: database) == nil)
    }

    @Test("A properties number one digit past numeric's scale is refused with 22003; the validator's edge is stored")
    func propertiesNumbers() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        let edge = "0." + String(repeating: "0", count: 15_382) + "1e-1000"
        #expect(try refusal(of: [record { $0.propertiesJSON = #"{"a":\#(edge)}"# }], in: database) == nil)
        let past = "0.0" + String(repeating: "0", count: 15_382) + "1e-1000"
        let error = try #require(try refusal(of: [record { $0.propertiesJSON = #"{"a":\#(past)}"# }], in: database))
        #expect(error.sqlState == SQLState(rawValue: "22003"))
    }

    @Test("A failed CHECK names its constraint and is not taken for a missing partition")
    func checkViolationNamesConstraint() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        let writer = EventWriter(connection: try database.connect())
        _ = try writer.write(events: [record()], rejections: [])
        let dollar = record { event in
            event.type = .conversion
            event.channel = nil
            event.conversionName = "$\u{301}x"
        }
        do {
            _ = try writer.write(events: [dollar], rejections: [])
            Issue.record("the database stored a conversion name starting with $")
        } catch let error as PostgresError {
            #expect(error.sqlState == .checkViolation)
            #expect(error.constraint == "events_conversion_name_format")
            #expect(!error.isNoPartitionForRow)
        }
    }

    @Test("A purchase whose value is not its price × quantity, or a price without a quantity, is refused by its CHECK")
    func purchaseValueCheck() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        func purchase(value: String, price: String, quantity: Int?) -> EventRecord {
            record { event in
                event.type = .conversion
                event.channel = nil
                event.source = nil
                event.variantID = nil
                event.conversionName = "purchase"
                event.value = Decimal(string: value)
                event.price = Decimal(string: price)
                event.quantity = quantity
            }
        }
        #expect(try refusal(of: [purchase(value: "6", price: "2", quantity: 3)], in: database) == nil)
        for wrong in [purchase(value: "5", price: "2", quantity: 3), purchase(value: "2", price: "2", quantity: nil)] {
            let error = try #require(try refusal(of: [wrong], in: database))
            #expect(error.sqlState == .checkViolation)
            #expect(error.constraint == "events_price_times_quantity_is_value")
        }
    }

    @Test("A partition dropped behind the writer's back is made again and the batch stored")
    func partitionRetry() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        let connection = try database.connect()
        let writer = EventWriter(connection: try database.connect())
        _ = try writer.write(events: [record()], rejections: [])
        let partition = try #require(try connection.query(
            "select inhrelid::regclass::text from pg_inherits where inhparent = 'cardinal.events'::regclass"
        ).first?.decode(String.self, at: 0))
        try connection.executeScript("drop table \(partition)")
        let id = UUID()
        #expect(try writer.write(events: [record(id)], rejections: []) == [true])
        #expect(try connection.query("select count(*) from cardinal.events where id = $1", [id]).first?.decode(Int64.self, at: 0) == 1)
    }

    @Test("An event older than the database's retention is refused as outside the partition range, not as a bug")
    func timeOutsidePartitionRange() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        try database.connect().executeScript("update cardinal.settings set retention_days = 30")
        let old = record { $0.time = now.addingTimeInterval(-90 * 86_400) }
        do {
            _ = try EventWriter(connection: try database.connect()).write(events: [old], rejections: [])
            Issue.record("an event 90 days old was stored with a retention of 30 days")
        } catch EventWriteError.timeOutsidePartitionRange(let error) {
            #expect(error.sqlState == .invalidParameterValue)
        }
        // Within the retention the same writer still stores.
        #expect(try EventWriter(connection: try database.connect()).write(events: [record()], rejections: []) == [true])
    }

    @Test("Two writers storing the same events in opposite orders at once never deadlock")
    func concurrentDuplicatesDoNotDeadlock() throws {
        let database = try TestDatabase.migrated(prefix: "refusal")
        defer { database.drop() }
        let rounds = 40, perBatch = 200
        let time = now
        // Both writers make the partition first, so that the rounds race only on the events.
        _ = try EventWriter(connection: try database.connect()).write(events: [record()], rejections: [])
        let deadlocks = Mutex(0), otherErrors = Mutex<[String]>([]), stored = Mutex(0)
        let batches: [[UUID]] = (0..<rounds).map { _ in (0..<perBatch).map { _ in UUID() } }
        let start = DispatchGroup(), done = DispatchGroup()
        // A two-party barrier before every round, so that the two batches of a round really overlap.
        let turnstiles = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let url = database.url
        for (writerIndex, reversed) in [false, true].enumerated() {
            start.enter()
            done.enter()
            Thread {
                defer { done.leave() }
                // Superuser test connection: detect a deadlock after 50 ms rather than the default second.
                guard let connection = try? PostgresConnection(connectionString: url),
                      (try? connection.execute("set deadlock_timeout = '50ms'")) != nil
                else {
                    otherErrors.withLock { $0.append("connect") }
                    start.leave()
                    return
                }
                let writer = EventWriter(connection: connection)
                start.leave()
                start.wait()
                for ids in batches {
                    turnstiles[1 - writerIndex].signal()
                    turnstiles[writerIndex].wait()
                    let ordered = reversed ? ids.reversed() : ids
                    let records = ordered.map { EventRecord(
                        appID: 1, event: Event(id: $0, type: .impression, channel: .banner, time: time, userID: "u",
                                               source: .campaign("c")), receivedAt: time) }
                    do {
                        let inserted = try writer.write(events: records, rejections: [])
                        stored.withLock { $0 += inserted.filter { $0 }.count }
                    } catch let error as PostgresError where error.sqlState == .deadlockDetected {
                        deadlocks.withLock { $0 += 1 }
                    } catch {
                        otherErrors.withLock { $0.append(String(describing: error)) }
                    }
                }
            }.start()
        }
        done.wait()
        #expect(otherErrors.withLock { $0 } == [])
        #expect(deadlocks.withLock { $0 } == 0)
        // Each event stored exactly once between the two writers.
        #expect(stored.withLock { $0 } == rounds * perBatch)
    }
}
