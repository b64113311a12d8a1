/// The byte budget of the indexed text columns.
///
/// A B-tree entry of PostgreSQL (8 KiB pages) holds at most 2704 bytes, and an insert whose entry is larger
/// fails with SQLSTATE 54000 — for the whole group-commit batch. The character limits alone do not keep the
/// entries small enough: 511 + 255 + 255 characters of 3- or 4-byte UTF-8 reach 4084 bytes. So the text
/// columns of each index entry of `cardinal.events` (0005_events.sql) are bounded together, in bytes:
///
/// - `events_campaign_idx` (when `campaign_id` is set): `campaign_id`, `user_key` and `variant_id` (the
///   canvas columns it also holds are always null there, as an event has one message source);
/// - `events_conversion_idx` (conversions): `user_key` and `conversion_name`.
///
/// `user_key` is `user_id`, or `device:` and `device_id` for anonymous events. `events_pkey` holds fixed-size
/// columns only.
extension EventValidator {
    /// Rejects an event whose indexed text columns exceed ``Limits/indexedTextMaxBytes`` together.
    func checkIndexEntrySize(of event: Event) throws(ValidationFailure) {
        let userKey: (names: [String], bytes: Int)
        if let userID = event.userID {
            userKey = (["user_id"], userID.utf8.count)
        } else {
            userKey = (["device_id"], "device:".utf8.count + (event.deviceID?.utf8.count ?? 0))
        }
        if case .campaign(let campaignID)? = event.source {
            var names = ["campaign_id"] + userKey.names
            var bytes = campaignID.utf8.count + userKey.bytes
            if let variantID = event.variantID {
                names.append("variant_id")
                bytes += variantID.utf8.count
            }
            try Self.checkBudget(names: names, bytes: bytes)
        }
        if let name = event.conversionName {
            try Self.checkBudget(names: userKey.names + ["name"], bytes: userKey.bytes + name.utf8.count)
        }
    }

    private static func checkBudget(names: [String], bytes: Int) throws(ValidationFailure) {
        guard bytes > Limits.indexedTextMaxBytes else { return }
        let listed = names.map { "\"\($0)\"" }
        let joined = listed.count == 2
            ? listed.joined(separator: " and ")
            : listed.dropLast().joined(separator: ", ") + " and " + listed.last!
        throw ValidationFailure(
            code: .tooLong,
            message: "fields \(joined) are \(bytes) bytes together in UTF-8; the limit is \(Limits.indexedTextMaxBytes), "
                + "the most one index entry can hold")
    }
}
