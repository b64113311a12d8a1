import CardinalCore
import CardinalStore

/// Writes one batch of submissions through a sink so that one event the database refuses never fails the
/// others: when the sink reports `.refusedByDatabase`, the batch's events are split in halves and each half
/// is written on its own, recursively, until every refused half is a single event. The good halves commit;
/// each refused event becomes a rejection with the refusal's code (`database_refused`, or `time_too_old`
/// for a time outside the database's partitions) and is stored, with the request's own rejections, in one
/// last transaction.
///
/// One bad event among n costs about 2·log₂(n) extra transactions; a batch that passes costs nothing extra.
/// A submission whose events were committed in several transactions is answered once all have committed.
/// The spool's replay writes its records the same way (`SpoolReplayer`), each record an item.
struct RefusalBisection {
    let sink: any BatchSink

    /// Writes `batch` and says, for each item in order, what became of it.
    func write<Item: BisectableItem>(_ batch: [Item]) -> [SubmissionOutcome] {
        let records = batch.flatMap(\.events)
        let rejections = batch.flatMap(\.rejections)
        var fates: [Fate]
        do {
            fates = try sink.write(events: records, rejections: rejections).map(Fate.stored)
        } catch .refusedByDatabase(let refusal) where !records.isEmpty {
            fates = Array(repeating: .stored(false), count: records.count)
            split(0..<records.count, refusedWith: refusal, records: records, into: &fates)
            return finish(batch, records: records, fates: fates)
        } catch {
            return batch.map { _ in .notWritten(error) }
        }
        return Self.outcomes(of: batch, fates: fates, rejectionsFailure: nil)
    }

    /// What became of one event of the batch.
    enum Fate: Equatable {
        /// Committed; `true` when stored now, `false` for a duplicate of a stored event.
        case stored(Bool)
        /// Refused by the database for this reason; to be stored as a rejection.
        case refused(DatabaseRefusal)
        /// Not written, for a reason that is not its data (the database went away meanwhile).
        case failed(WriteFailure)
    }

    /// Finds the refused events of `range`, which the database refused as a whole.
    private func split(_ range: Range<Int>, refusedWith refusal: DatabaseRefusal, records: [EventRecord], into fates: inout [Fate]) {
        guard range.count > 1 else {
            fates[range.lowerBound] = .refused(refusal)
            return
        }
        let middle = range.lowerBound + range.count / 2
        for half in [range.lowerBound..<middle, middle..<range.upperBound] {
            do {
                let inserted = try sink.write(events: Array(records[half]), rejections: [])
                for (index, flag) in zip(half, inserted) {
                    fates[index] = .stored(flag)
                }
            } catch .refusedByDatabase(let refusal) {
                split(half, refusedWith: refusal, records: records, into: &fates)
            } catch {
                for index in half {
                    fates[index] = .failed(error)
                }
            }
        }
    }

    /// Stores the items' rejections together with the refused events, then answers each item.
    private func finish<Item: BisectableItem>(_ batch: [Item], records: [EventRecord], fates: [Fate]) -> [SubmissionOutcome] {
        var rejections = batch.flatMap(\.rejections)
        var offset = 0
        for item in batch {
            for position in item.events.indices {
                if case .refused(let refusal) = fates[offset + position] {
                    rejections.append(item.rejection(ofEventAt: position, refusedFor: refusal))
                }
            }
            offset += item.events.count
        }
        var rejectionsFailure: WriteFailure?
        if !rejections.isEmpty {
            do {
                _ = try sink.write(events: [], rejections: rejections)
            } catch {
                rejectionsFailure = error
            }
        }
        return Self.outcomes(of: batch, fates: fates, rejectionsFailure: rejectionsFailure)
    }

    /// Each item's outcome: not written when any of its events failed, or when it has rejections and they
    /// could not be stored; otherwise written, with its refused events among its rejections.
    private static func outcomes<Item: BisectableItem>(of batch: [Item], fates: [Fate], rejectionsFailure: WriteFailure?) -> [SubmissionOutcome] {
        var offset = 0
        return batch.map { item in
            let own = fates[offset..<offset + item.events.count]
            offset += item.events.count
            var inserted: [Bool] = []
            var refused: [EventRejection] = []
            for (position, fate) in zip(item.events.indices, own) {
                switch fate {
                case .stored(let flag):
                    inserted.append(flag)
                case .refused(let refusal):
                    refused.append(item.rejection(ofEventAt: position, refusedFor: refusal).rejection)
                case .failed(let failure):
                    return .notWritten(failure)
                }
            }
            if let rejectionsFailure, !(refused.isEmpty && item.rejections.isEmpty) {
                return .notWritten(rejectionsFailure)
            }
            return .written(inserted: inserted, refused: refused)
        }
    }
}

/// What a batch written through `RefusalBisection` is made of: events answered together, with the rejections
/// that travel with them.
protocol BisectableItem {
    var events: [EventRecord] { get }
    var rejections: [RejectionRecord] { get }
    /// The request id under which a refused event's rejection is stored.
    var requestID: String { get }
    /// The index a refused event's rejection reports for the event at `position` of `events`.
    func requestIndex(ofEventAt position: Int) -> Int
}

extension BisectableItem {
    /// The rejection to store for the event at `position` of `events`, which the database refused.
    func rejection(ofEventAt position: Int, refusedFor refusal: DatabaseRefusal) -> RejectionRecord {
        let record = events[position]
        return RejectionRecord(
            appID: record.appID, requestID: requestID, receivedAt: record.receivedAt,
            rejection: EventRejection(
                index: requestIndex(ofEventAt: position), id: record.event.id.uuidString.lowercased(),
                code: refusal.code, message: refusal.message, rawJSON: record.event.compactJSON))
    }
}
