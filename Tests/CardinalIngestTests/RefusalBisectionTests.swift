import CardinalCore
import CardinalStore
import Foundation
import Testing

@testable import CardinalIngest

/// A sink that refuses every write holding a "bad" event, remembers the keys it stored, and can fail its
/// n-th write as if the database went away.
private final class FakeSink: BatchSink {
    var bad: Set<UUID>
    var refusalCode: RejectionCode = .databaseRefused
    var unavailableOnWrite: Int?
    private(set) var stored: [UUID] = []
    private(set) var storedRejections: [RejectionRecord] = []
    private(set) var writes: [(events: Int, rejections: Int)] = []

    init(bad: Set<UUID> = []) {
        self.bad = bad
    }

    func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
        writes.append((events.count, rejections.count))
        if writes.count == unavailableOnWrite {
            throw .databaseUnavailable
        }
        if events.contains(where: { bad.contains($0.event.id) }) {
            throw .refusedByDatabase(DatabaseRefusal(code: refusalCode, message: "refused (SQLSTATE 23514)"))
        }
        var seen = Set(stored)
        let inserted = events.map { seen.insert($0.event.id).inserted }
        stored = Array(seen)
        storedRejections += rejections
        return inserted
    }
}

@Suite struct RefusalBisectionTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_748_736_000)

    static func submission(_ ids: [UUID], rejections: [EventRejection] = [], requestID: String = "req-1") -> Submission {
        Submission(
            events: ids.map {
                EventRecord(appID: 1, event: Event(id: $0, type: .impression, channel: .banner, time: receivedAt,
                                                   userID: "u", source: .campaign("c")), receivedAt: receivedAt)
            },
            rejections: rejections.map { RejectionRecord(appID: 1, requestID: requestID, receivedAt: receivedAt, rejection: $0) },
            requestID: requestID,
            // Events sit at odd positions of the request, so a test notices when a rejection takes the wrong one.
            eventIndices: ids.indices.map { 2 * $0 + 1 },
            deadline: .now + .seconds(10),
            complete: { _ in }
        )
    }

    static func ids(_ count: Int) -> [UUID] { (0..<count).map { _ in UUID() } }

    @Test("A batch the database accepts is written once and every event is reported stored")
    func acceptedBatch() throws {
        let sink = FakeSink()
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(Self.ids(5))])
        #expect(sink.writes.count == 1)
        guard case .written(let inserted, let refused)? = outcomes.first else { Issue.record("not written"); return }
        #expect(inserted == [true, true, true, true, true])
        #expect(refused.isEmpty)
    }

    @Test("One refused event among sixteen is rejected alone and its fifteen neighbours are stored")
    func oneBadEvent() throws {
        let ids = Self.ids(16)
        let sink = FakeSink(bad: [ids[11]])
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(ids)])
        guard case .written(let inserted, let refused)? = outcomes.first else { Issue.record("not written"); return }
        #expect(inserted == Array(repeating: true, count: 15))
        #expect(Set(sink.stored) == Set(ids).subtracting([ids[11]]))
        let rejection = try #require(refused.first)
        #expect(refused.count == 1)
        #expect(rejection.index == 23)
        #expect(rejection.id == ids[11].uuidString.lowercased())
        #expect(rejection.code == .databaseRefused)
        #expect(rejection.rawJSON.contains(ids[11].uuidString.lowercased()))
        // The refused event is stored as a rejection, in one last write.
        #expect(sink.storedRejections.map(\.rejection) == refused)
        #expect(sink.storedRejections.first?.requestID == "req-1")
        // 1 whole + 2 per level of 4 levels + 1 for the rejection; far fewer than one write per event.
        #expect(sink.writes.count == 10)
    }

    @Test("Several refused events across submissions each land in their own submission's errors")
    func badEventsInSeveralSubmissions() throws {
        let first = Self.ids(3), second = Self.ids(4)
        let sink = FakeSink(bad: [first[0], second[2], second[3]])
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(first), Self.submission(second, requestID: "req-2")])
        guard case .written(let firstInserted, let firstRefused) = outcomes[0],
              case .written(let secondInserted, let secondRefused) = outcomes[1]
        else { Issue.record("not written: \(outcomes)"); return }
        #expect(firstInserted == [true, true])
        #expect(firstRefused.map(\.index) == [1])
        #expect(secondInserted == [true, true])
        #expect(secondRefused.map(\.index) == [5, 7])
        #expect(Set(sink.storedRejections.map(\.requestID)) == ["req-1", "req-2"])
    }

    @Test("The request's own rejections are stored once, with the refused events, after the bisection")
    func validationRejectionsStoredOnce() throws {
        let ids = Self.ids(4)
        let sink = FakeSink(bad: [ids[1]])
        let invalid = EventRejection(index: 0, id: "x", code: .invalidUUID, message: "bad id", rawJSON: "{}")
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(ids, rejections: [invalid])])
        guard case .written(_, let refused)? = outcomes.first else { Issue.record("not written"); return }
        #expect(refused.map(\.index) == [3])
        #expect(sink.storedRejections.map(\.rejection.code) == [.invalidUUID, .databaseRefused])
    }

    @Test("A duplicate within a batch is stored once even when the bisection puts its copies in different halves")
    func duplicateAcrossHalves() throws {
        let ids = Self.ids(3)
        let sink = FakeSink(bad: [ids[2]])
        let outcomes = RefusalBisection(sink: sink).write([Self.submission([ids[0], ids[1], ids[0], ids[2]])])
        guard case .written(let inserted, let refused)? = outcomes.first else { Issue.record("not written"); return }
        #expect(inserted == [true, true, false])
        #expect(refused.count == 1)
    }

    @Test("A refusal for an event's time keeps its code, so the client sees time_too_old")
    func refusalCodeKept() throws {
        let ids = Self.ids(2)
        let sink = FakeSink(bad: [ids[0]])
        sink.refusalCode = .timeTooOld
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(ids)])
        guard case .written(_, let refused)? = outcomes.first else { Issue.record("not written"); return }
        #expect(refused.map(\.code) == [.timeTooOld])
    }

    @Test("When the database goes away during the bisection, the submissions with unwritten events get that failure")
    func unavailableDuringBisection() throws {
        let first = Self.ids(2), second = Self.ids(2)
        let sink = FakeSink(bad: [first[0]])
        // Write 1: whole batch (refused); 2: first half = first submission (refused); 3: first[0] (refused);
        // 4: first[1] (stored); 5: second half = second submission (unavailable).
        sink.unavailableOnWrite = 5
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(first), Self.submission(second)])
        guard case .written(let inserted, let refused) = outcomes[0] else { Issue.record("first not written"); return }
        #expect(inserted == [true])
        #expect(refused.count == 1)
        guard case .notWritten(let failure) = outcomes[1] else { Issue.record("second written"); return }
        #expect(failure == .databaseUnavailable)
    }

    @Test("A failure other than a data refusal is not bisected")
    func otherFailuresNotBisected() throws {
        let sink = FakeSink()
        sink.unavailableOnWrite = 1
        let outcomes = RefusalBisection(sink: sink).write([Self.submission(Self.ids(8))])
        #expect(sink.writes.count == 1)
        guard case .notWritten(.databaseUnavailable)? = outcomes.first else { Issue.record("expected 503 outcome"); return }
    }
}
