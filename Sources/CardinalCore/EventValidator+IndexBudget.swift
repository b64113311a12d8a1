/// The byte budget of the indexed text columns.
///
/// A B-tree entry of PostgreSQL (8 KiB pages) holds at most 2704 bytes, and an insert whose entry is larger
/// fails with SQLSTATE 54000: in `cardinal.events` for the whole group-commit batch, in the report state for
/// every fold from then on. The character limits alone do not keep the entries small enough: 511 + 255 + 255
/// characters of 3- or 4-byte UTF-8 reach 4084 bytes. So the text columns of each kind of index entry that an
/// event makes, in the events table or in the report state the fold keeps, are bounded together, in bytes
/// (``Limits/indexedTextMaxBytes``):
///
/// - `campaign_id`, the user key and `variant_id`: `events_campaign_idx` and the per-user state of campaigns
///   (receipts, control exposures, send arms, several-arm and acting users); for a canvas, `canvas_id` and the
///   user key (several-arm and acting users);
/// - the user key and `session_id` (`report_session_state`), and the user key with each of `message_id`,
///   `placement_id` and `button_id` (`report_dismissal_state`, `report_part_state`);
/// - the user key and the conversion `name` (`events_conversion_idx`, `report_conversion_state`);
/// - the conversion `name`, `order_id` and `product_id` (`conversion_orders`, the first of each order);
/// - the message source, `variant_id`, `channel`, `platform`, `sdk_version` and `app_version`: the report
///   groups, findings and step counts (`report_groups_key` holds them all);
/// - the same source, `variant_id` and `channel` as `report_rows.row_key` spells them, each quoted
///   (`quote_nullable`: a `'` or `\` twice) in one text.
///
/// The user key is `user_id`, or `device:` and `device_id` for anonymous events. The report state keys an
/// anonymous device's events by the user it logs in as, once it does (identity merge), so in the state an
/// anonymous event's key is counted as the longest `user_id` there can be (``Limits/userKeyMaxBytes``).
extension EventValidator {
    /// Rejects an event whose indexed text columns of one entry exceed ``Limits/indexedTextMaxBytes``.
    func checkIndexEntrySize(of event: Event) throws(ValidationFailure) {
        // Almost every event is far from every budget; listing its entries, on every event, would be wasted.
        guard IndexEntryText.bound(of: event) > Limits.indexedTextMaxBytes else {
            return
        }
        for entry in IndexEntryText.entries(of: event) where entry.bytes > Limits.indexedTextMaxBytes {
            throw ValidationFailure(code: .tooLong, message: entry.overBudgetMessage)
        }
    }
}

/// The text columns of one index entry that an event makes, with their size in bytes as the entry holds them.
struct IndexEntryText: Equatable {
    /// The event field behind each column, by its API name, and its bytes.
    var fields: [Field]
    /// Whether the user key is an anonymous device's, counted as ``Limits/userKeyMaxBytes``.
    var countsDeviceAsUser = false
    /// Whether the columns are counted as `quote_nullable` spells them.
    var quoted = false

    struct Field: Equatable {
        var name: String
        var bytes: Int
    }

    var bytes: Int { fields.reduce(0) { $0 + $1.bytes } }

    /// More than any entry of the event can hold: the longest user key, and every other indexed text twice
    /// (a `'` or `\` quoted) with its quotes and `E`.
    static func bound(of event: Event) -> Int {
        let texts: [String?] = [
            event.sessionID, event.variantID, event.messageID, event.placementID, event.buttonID,
            event.sdkVersion, event.appVersion, event.conversionName, event.channel?.rawValue, event.platform?.rawValue,
            event.orderID, event.productID,
        ]
        let sourceBytes = switch event.source {
        case nil: 0
        case .campaign(let id): id.utf8.count
        case .canvas(let id, let stepID): id.utf8.count + stepID.utf8.count
        }
        let otherBytes = texts.reduce(sourceBytes) { $0 + ($1?.utf8.count ?? 0) }
        return Limits.userKeyMaxBytes + 2 * otherBytes + 3 * 5
    }

    /// Every kind of entry the event makes whose text columns can be long, in the order they are checked.
    static func entries(of event: Event) -> [IndexEntryText] {
        let user = userKey(of: event)
        let source: [Field] = switch event.source {
        case nil: []
        case .campaign(let id): [Field(name: "campaign_id", bytes: id.utf8.count)]
        case .canvas(let id, let stepID):
            [Field(name: "canvas_id", bytes: id.utf8.count), Field(name: "canvas_step_id", bytes: stepID.utf8.count)]
        }
        let variant = field("variant_id", event.variantID)
        var entries: [IndexEntryText] = []
        func add(_ fields: [Field?], quoted: Bool = false) {
            let present = fields.compactMap { $0 }
            entries.append(IndexEntryText(
                fields: present, countsDeviceAsUser: event.userID == nil && present.contains(user), quoted: quoted))
        }
        switch event.source {
        case .campaign?: add(source + [user, variant])
        // The step and the variant of a canvas are in no per-user key.
        case .canvas?: add([source[0], user])
        case nil: break
        }
        if let name = field("name", event.conversionName) {
            add([user, name])
            if let order = field("order_id", event.orderID) {
                add([name, order, field("product_id", event.productID)])
            }
        }
        for (name, value) in [("session_id", event.sessionID), ("message_id", event.messageID),
                              ("placement_id", event.placementID), ("button_id", event.buttonID)] {
            if let part = field(name, value) {
                add([user, part])
            }
        }
        if !source.isEmpty {
            add(source + [variant, field("channel", event.channel?.rawValue), field("platform", event.platform?.rawValue),
                          field("sdk_version", event.sdkVersion), field("app_version", event.appVersion)])
            add(quotedRowKey(of: event), quoted: true)
        }
        // One column alone is bounded by its character limit.
        return entries.filter { $0.fields.count > 1 }
    }

    /// The user key as the report state may hold it: `user_id`, or for an anonymous event the longest user key
    /// a login can give its device (longer than any `device:` key, at most 7 + 1020 bytes).
    private static func userKey(of event: Event) -> Field {
        if let userID = event.userID {
            return Field(name: "user_id", bytes: userID.utf8.count)
        }
        return Field(name: "device_id", bytes: Limits.userKeyMaxBytes)
    }

    private static func field(_ name: String, _ value: String?) -> Field? {
        value.map { Field(name: name, bytes: $0.utf8.count) }
    }

    /// The columns of `report_rows.row_key` (`report_row_key`) as `quote_nullable` writes them: in
    /// quotes, a `'` or `\` doubled, and an `E` before a text with a `\`.
    private static func quotedRowKey(of event: Event) -> [Field?] {
        func quoted(_ name: String, _ value: String?) -> Field? {
            value.map { text in
                let doubled = text.utf8.count(where: { $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "\\") })
                let escape = text.utf8.contains(UInt8(ascii: "\\")) ? 1 : 0
                return Field(name: name, bytes: text.utf8.count + doubled + escape + 2)
            }
        }
        let source: [Field?] = switch event.source {
        case nil: []
        case .campaign(let id): [quoted("campaign_id", id)]
        case .canvas(let id, let stepID): [quoted("canvas_id", id), quoted("canvas_step_id", stepID)]
        }
        return source + [quoted("variant_id", event.variantID), quoted("channel", event.channel?.rawValue)]
    }

    /// The rejection message of an entry past the budget.
    var overBudgetMessage: String {
        let listed = fields.map { "\"\($0.name)\"" }
        let joined = listed.count == 2
            ? listed.joined(separator: " and ")
            : listed.dropLast().joined(separator: ", ") + " and " + listed.last!
        var message = "fields \(joined) are \(bytes) bytes together in UTF-8"
        if quoted {
            message += " as the report state quotes them (a ' or \\ counts twice)"
        }
        if countsDeviceAsUser {
            message += " (\"device_id\" counted as the longest user_id, \(Limits.userKeyMaxBytes) bytes, "
                + "which a login can give the device in the report state)"
        }
        return message + "; the limit is \(Limits.indexedTextMaxBytes), the most one index entry can hold"
    }
}
