import CardinalCore
import CardinalStore
import Foundation

/// One record of a spool segment on its way back into the database: its batch, and where it lies in the spool.
///
/// The spool does not keep the id of the request that carried an event, so an event the database refuses at
/// replay is stored as a rejection under a request id that names its record instead,
/// `spool-<segment>-<offset>-<when spooled, µs since 1970>`, at its position in the record. The same record
/// replayed again (after a crash) makes the same id, so its rejection is stored once; the spool time
/// tells apart records of segments numbered again after the spool emptied.
struct ReplayedRecord: BisectableItem {
    let batch: SpooledBatch
    let segment: UInt64
    /// Where the record's frame starts in its segment.
    let offset: Int

    var events: [EventRecord] { batch.events }
    var rejections: [RejectionRecord] { batch.rejections }

    var requestID: String {
        let spooledMicroseconds = Int64((batch.spooledAt.timeIntervalSince1970 * 1_000_000).rounded())
        return "spool-\(segment)-\(offset)-\(spooledMicroseconds)"
    }

    /// A refused event's rejection names its position in the record.
    func requestIndex(ofEventAt position: Int) -> Int { position }
}
