import Foundation

/// What must hold for any body the batch decoder is given, checked by the `batch-json` and `batch-ndjson`
/// fuzz targets (see `scripts/fuzz/fuzz.sh`). A broken property stops the run like a crash, with the input saved.
enum BatchOracle {
    /// The receipt time of every fuzzed request, fixed so that the times in the seed corpus stay valid:
    /// 2025-06-01T00:00:00Z, as in the unit tests.
    static let receivedAt = Date(timeIntervalSince1970: 1_748_736_000)

    static let decoder = BatchDecoder()

    /// Decodes `body` and checks the outcome: a body that is not a batch throws (and nothing else is asked of
    /// it); otherwise every event of the request is counted exactly once, a valid event survives its own
    /// re-serialization unchanged, and the evidence kept for a rejected JSON element is JSON.
    static func check(_ body: UnsafeBufferPointer<UInt8>, format: BatchFormat) {
        let batch: DecodedBatch
        do {
            batch = try decoder.decode(Array(body), format: format, receivedAt: receivedAt)
        } catch {
            return
        }
        precondition(batch.count == batch.events.count + batch.rejections.count, "count is not events + rejections")
        let indices = (batch.events.map(\.index) + batch.rejections.map(\.index)).sorted()
        precondition(indices == Array(0..<batch.count), "indices are not 0..<count, each once: \(indices)")

        for indexed in batch.events {
            let text = indexed.event.compactJSON
            guard let value = try? JSONValue.parse(text) else {
                preconditionFailure("a valid event re-serializes to text that is not JSON: \(text)")
            }
            let again = decoder.validator.validate(value, index: indexed.index, now: receivedAt)
            precondition(again == .success(indexed.event), "a valid event changes when re-validated: \(text) → \(again)")
        }
        if format == .json {
            for rejection in batch.rejections {
                precondition((try? JSONValue.parse(rejection.rawJSON)) != nil,
                             "the evidence of a rejection is not JSON: \(rejection.rawJSON)")
            }
        }
    }
}
