import CardinalCore
import CardinalStore
import Foundation
import Testing

/// The validator's byte budget of index entries (`EventValidator+IndexBudget.swift`) against the real indexes:
/// an event the validator accepts must fit every B-tree entry it makes, in the events table and in the report
/// state, or the fold fails on it (SQLSTATE 54000) every time it runs.
@Suite struct IndexEntryBudgetTests {
    /// A text field of an event that an index holds, and the most characters the API allows in it.
    private enum TextField: CaseIterable {
        case user, device, session, source, step, variant, message, placement, button, sdkVersion, appVersion, name

        var limit: Int {
            switch self {
            case .user: Limits.userIDMaxLength
            case .sdkVersion, .appVersion: Limits.versionMaxLength
            default: Limits.identifierMaxLength
            }
        }

        /// Whether the field can be set on `event` (the other fields of its type are rejected for their own reasons).
        func applies(to event: Event) -> Bool {
            switch self {
            case .user: event.userID != nil
            case .device: event.userID == nil
            case .session, .sdkVersion, .appVersion: true
            case .source: event.source != nil
            case .step: if case .canvas? = event.source { true } else { false }
            case .variant, .message, .button: event.source != nil && event.type != .sessionStart
            case .placement: event.source != nil
            case .name: event.type == .conversion
            }
        }

        func set(_ text: String, on event: inout Event) {
            switch self {
            case .user: event.userID = text
            case .device: event.deviceID = text
            case .session: event.sessionID = text
            case .source:
                switch event.source {
                case .canvas(_, let stepID)?: event.source = .canvas(id: text, stepID: stepID)
                default: event.source = .campaign(text)
                }
            case .step:
                if case .canvas(let id, _)? = event.source {
                    event.source = .canvas(id: id, stepID: text)
                }
            case .variant: event.variantID = text
            case .message: event.messageID = text
            case .placement: event.placementID = text
            case .button: event.buttonID = text
            case .sdkVersion: event.sdkVersion = text
            case .appVersion: event.appVersion = text
            case .name: event.conversionName = text
            }
        }
    }

    /// Random text that PostgreSQL's compression of large index entries cannot shrink: scalars of 4 or 3 bytes,
    /// or 4-byte ones mixed with the `'` and `\` that `quote_nullable` doubles.
    private static func text(_ count: Int, alphabet: Int, using generator: inout SeededGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count {
            let value: UInt32 = switch alphabet {
            case 0: UInt32.random(in: 0x2_0000...0x2_A6DF, using: &generator)
            case 1: UInt32.random(in: 0x4E00...0x9FFF, using: &generator)
            default: generator.pick([0x27, 0x5C, UInt32.random(in: 0x2_0000...0x2_A6DF, using: &generator)])
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    private static func accepted(_ event: Event) -> Bool {
        guard let json = try? JSONValue.parse(event.compactJSON) else {
            return false
        }
        return (try? EventValidator().validate(json, index: 0, now: Date()).get()) != nil
    }

    /// `event` with its text fields, in a random order, each made as long as the validator still accepts. Half
    /// the time a `user_id` stays short, so that the entries without the user key are stretched to their edge.
    private static func stretched(_ event: Event, using generator: inout SeededGenerator) -> Event {
        var event = event
        let fields = TextField.allCases.filter { $0 != .user || generator.chance(0.5) }
        for field in fields.shuffled(using: &generator) where field.applies(to: event) {
            let full = text(field.limit, alphabet: Int.random(in: 0...2, using: &generator), using: &generator)
            var (longest, tooLong) = (0, field.limit + 1)
            while tooLong - longest > 1 {
                let middle = (longest + tooLong) / 2
                var candidate = event
                field.set(String(full.unicodeScalars.prefix(middle)), on: &candidate)
                if accepted(candidate) { longest = middle } else { tooLong = middle }
            }
            if longest > 0 {
                field.set(String(full.unicodeScalars.prefix(longest)), on: &event)
            }
        }
        return event
    }

    @Test("Events stretched to the validator's byte budget in every field are stored and folded, logins re-keying them")
    func stretchedEventsStoreAndFold() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var generator = SeededGenerator(seed: 0x1D_E7_B0D6)
        let templates: [(Int) -> Event] = [
            { event(.impression, at: scenario.time($0 % 20, "10:00"), user: "u") },
            { event(.dismissal, at: scenario.time($0 % 20, "10:00"), device: "d") },
            { event(.click, .inAppMessage, at: scenario.time($0 % 20, "11:00"), device: "d") },
            { event(.impression, .banner, at: scenario.time($0 % 20, "12:00"), device: "d") },
            { event(.send, .push, at: scenario.time($0 % 20, "09:00"), user: "u") },
            { event(.impression, at: scenario.time($0 % 20, "10:00"), device: "d", control: true) },
            {
                var canvas = event(.impression, .inAppMessage, at: scenario.time($0 % 20, "13:00"), device: "d")
                canvas.source = .canvas(id: "k", stepID: "s")
                return canvas
            },
            {
                var canvas = event(.click, .banner, at: scenario.time($0 % 20, "13:00"), user: "u")
                canvas.source = .canvas(id: "k", stepID: "s")
                return canvas
            },
            { event(.sessionStart, at: scenario.time($0 % 20, "08:00"), device: "d", variant: nil, session: "s") },
            { event(.conversion, at: scenario.time($0 % 20, "14:00"), device: "d", conversion: "n") },
        ]
        var events: [Event] = []
        for trial in 0..<300 {
            let template = templates[trial % templates.count](trial)
            #expect(Self.accepted(template), "template \(trial % templates.count)")
            events.append(Self.stretched(template, using: &generator))
        }
        // A canvas step whose variant ends in as many ' as the validator accepts: the unique-impressions row key
        // (report_rows.row_key) quotes them, each twice.
        var quoting = event(.impression, at: scenario.time(3, "10:00"), user: "u")
        quoting.source = .canvas(id: Self.text(255, alphabet: 0, using: &generator),
                                 stepID: Self.text(255, alphabet: 0, using: &generator))
        let variantStart = Self.text(90, alphabet: 0, using: &generator)
        var quotes = 0
        while true {
            var longer = quoting
            longer.variantID = variantStart + String(repeating: "'", count: quotes + 1)
            guard Self.accepted(longer) else { break }
            (quoting, quotes) = (longer, quotes + 1)
        }
        #expect(quotes > 80)
        events.append(quoting)
        // Each anonymous device then logs in as a new user with the longest user key: the fold re-keys its
        // state rows to that key.
        let devices = Set(events.filter { $0.userID == nil }.compactMap(\.deviceID))
        for device in devices.sorted() {
            let login = event(.sessionStart, at: scenario.time(25, "08:00"), user: Self.text(Limits.userIDMaxLength, alphabet: 0, using: &generator),
                              device: device, variant: nil)
            #expect(Self.accepted(login))
            events.append(login)
        }
        #expect(events.allSatisfy(Self.accepted))

        try scenario.write(events)
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)

        let reached = try scenario.connection.query(
            """
            select max(octet_length(user_key) + octet_length(session_id)),
                   max(octet_length(coalesce(campaign_id, canvas_id || canvas_step_id)) + octet_length(variant_id)
                       + octet_length(channel) + octet_length(platform)
                       + coalesce(octet_length(sdk_version), 0) + coalesce(octet_length(app_version), 0))
            from cardinal.events
            """
        ).first
        // Near the 2600-byte budget (within one 4-byte scalar), so the entries were really tried at their edge.
        #expect(try reached?.decode(Int.self, at: 0) ?? 0 > 2_590)
        #expect(try reached?.decode(Int.self, at: 1) ?? 0 > 2_590)
        // Every device logged in as a new user, so none of its state is left under its own key.
        let links = try scenario.connection.query("select count(*) from cardinal.identity_links where merged")
        #expect(try links.first?.decode(Int.self, at: 0) == devices.count)
        let anonymousRows = try scenario.connection.query(
            "select count(*) from cardinal.report_user_state where user_key like 'device:%'")
        #expect(try anonymousRows.first?.decode(Int.self, at: 0) == 0)
    }
}
