import CardinalCore
import Foundation

/// A random but reproducible workload for one app: events of every kind over 60 days, written in several
/// batches with duplicates, late events, test events, control arms, anonymous devices and users on several
/// devices, campaigns and canvas steps. The property tests compare the state-backed reports with the
/// reference functions on many of them.
struct RandomWorkload {
    /// The app's report time zone.
    let timeZone: String
    /// Time zones of campaigns that have one of their own.
    let campaignZones: [String: String]
    /// The batches, in writing order; later batches repeat some events of earlier ones (retries).
    let batches: [[Event]]

    static let zones = [
        "UTC", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham", "America/New_York",
        "Pacific/Kiritimati",
    ]
    static let campaigns = ["c0", "c1", "c2"]
    static let conversions = ["purchase", "signup"]
    /// The canvas whose steps some events come from.
    static let canvas = "canvas"

    /// - Parameter people: prefix of the workload's user and device ids: each app has users of its own, as
    ///   real apps do (the fold looks users up by id across apps).
    init(generator: inout SeededGenerator, baseTime: Date, people: String) {
        timeZone = generator.pick(Self.zones)
        var zones: [String: String] = [:]
        for campaign in Self.campaigns where generator.chance(0.3) {
            zones[campaign] = generator.pick(Self.zones)
        }
        campaignZones = zones

        let count = Int.random(in: 20...250, using: &generator)
        var events: [Event] = []
        for _ in 0..<count {
            events.append(Self.randomEvent(generator: &generator, baseTime: baseTime, people: people))
        }
        for login in Self.logins(generator: &generator, baseTime: baseTime, people: people) {
            events.insert(login, at: Int.random(in: 0...events.count, using: &generator))
        }
        var batches: [[Event]] = []
        var remaining = events[...]
        while !remaining.isEmpty {
            let size = Int.random(in: 1...max(1, remaining.count), using: &generator)
            var batch = Array(remaining.prefix(size))
            remaining = remaining.dropFirst(size)
            // Retries of events already written, and a repeat inside the batch.
            let written = batches.flatMap { $0 }
            if !written.isEmpty && generator.chance(0.5) {
                batch += (0..<Int.random(in: 1...5, using: &generator)).map { _ in generator.pick(written) }
            }
            if generator.chance(0.2), let repeated = batch.first {
                batch.append(repeated)
            }
            batches.append(batch)
        }
        let bursts = Self.bursts(generator: &generator, baseTime: baseTime, people: people)
        self.batches = bursts.isEmpty ? batches : batches + [bursts]
    }

    /// Events in numbers the anomaly kinds of 0027 need before they speak, each in a campaign of its own and in
    /// some workloads only: 1000 push sends on one platform (opened once, or never), 200 users shown a card
    /// (with a control impression, or none), and a campaign logging about 25 in-app impressions a day on two
    /// platforms for 16 days, one of which may go quiet after 8; and a user dismissing one card two or three
    /// times.
    private static func bursts(generator: inout SeededGenerator, baseTime: Date, people: String) -> [Event] {
        let day = { (offset: Int, generator: inout SeededGenerator) in
            baseTime.addingTimeInterval(Double(offset * 86_400 + Int.random(in: 0..<86_400, using: &generator)))
        }
        var events: [Event] = []
        if generator.chance(0.1) {
            let platform = generator.pick([Platform.ios, .android])
            for index in 0..<1000 {
                events.append(Event(
                    id: UUID(), type: .send, channel: .push, time: day(Int.random(in: 0..<60, using: &generator), &generator),
                    userID: "\(people)u\(index % 12)", source: .campaign("b0"), platform: platform
                ))
            }
            if generator.chance(0.5) {
                events.append(Event(id: UUID(), type: .click, channel: .push, time: day(59, &generator),
                                    userID: "\(people)u0", source: .campaign("b0"), platform: platform))
            }
        }
        if generator.chance(0.1) {
            let first = Int.random(in: 0..<50, using: &generator)
            for index in 0..<200 {
                events.append(Event(id: UUID(), type: .impression, channel: .contentCard, time: day(first, &generator),
                                    userID: "\(people)b\(index)", source: .campaign("b1"), variantID: "v0"))
            }
            if generator.chance(0.5) {
                events.append(Event(id: UUID(), type: .impression, channel: .contentCard, time: day(first, &generator),
                                    userID: "\(people)b200", source: .campaign("b1"), control: true))
            }
        }
        if generator.chance(0.1) {
            let first = Int.random(in: 0..<44, using: &generator)
            let quiet = generator.chance(0.7)
            for offset in 0..<16 {
                for platform in [Platform.ios, .android] where !(quiet && platform == .ios && offset >= 8) {
                    for index in 0..<Int.random(in: 20...30, using: &generator) {
                        events.append(Event(
                            id: UUID(), type: .impression, channel: .inAppMessage,
                            time: day(first + offset, &generator), userID: "\(people)u\(index % 12)",
                            sessionID: "s\(index)", source: .campaign("b2"), platform: platform
                        ))
                    }
                }
            }
        }
        events += pushOpens(generator: &generator, baseTime: baseTime, people: people)
        if generator.chance(0.15) {
            let card = "k\(Int.random(in: 0..<2, using: &generator))"
            for _ in 0..<Int.random(in: 2...3, using: &generator) {
                events.append(Event(
                    id: UUID(), type: .dismissal, channel: .contentCard,
                    time: day(Int.random(in: 0..<60, using: &generator), &generator), userID: "\(people)u1",
                    source: .campaign("b3"), messageID: card
                ))
            }
        }
        return events
    }

    /// Push sends with app opens (session starts) around them, from two hours before to twenty after, so that
    /// the 12-hour influenced-open window and its edges are met often; some direct opens, and deliveries.
    private static func pushOpens(generator: inout SeededGenerator, baseTime: Date, people: String) -> [Event] {
        guard generator.chance(0.6) else { return [] }
        var events: [Event] = []
        for _ in 0..<Int.random(in: 5...30, using: &generator) {
            let user = "\(people)u\(Int.random(in: 0..<12, using: &generator))"
            let sent = baseTime.addingTimeInterval(Double(Int.random(in: 0..<(60 * 86_400), using: &generator)))
            let source: MessageSource = generator.chance(0.8) ? .campaign(generator.pick(campaigns)) : .canvas(id: canvas, stepID: "s0")
            let variant = generator.pick([nil, "v0"])
            let platform = generator.pick([nil, Platform.ios, .android])
            let test = generator.chance(0.1)
            events.append(Event(id: UUID(), type: .send, channel: .push, time: sent, userID: user, source: source,
                                variantID: variant, control: generator.chance(0.1), platform: platform, test: test))
            if generator.chance(0.3) {
                events.append(Event(id: UUID(), type: .click, channel: .push,
                                    time: sent.addingTimeInterval(Double(Int.random(in: 0..<7200, using: &generator))),
                                    userID: user, source: source, variantID: variant, platform: platform, test: test))
            }
            // Deliveries up to a day after the send, so some fall on the next report day, and now and then
            // reported twice by one device. Drawn from a generator of their own, seeded by the send, so that the
            // rest of every workload is what it was before deliveries existed.
            var deliveryDraws = SeededGenerator(seed: UInt64(sent.timeIntervalSince(baseTime)))
            for _ in 0..<(deliveryDraws.chance(0.5) ? Int.random(in: 1...2, using: &deliveryDraws) : 0) {
                let delay = Double(Int.random(in: 0..<86_400, using: &deliveryDraws))
                events.append(Event(id: UUID(), type: .delivery, channel: .push, time: sent.addingTimeInterval(delay),
                                    userID: user, source: source, variantID: variant, platform: platform, test: test))
            }
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                // Exactly 12 hours after the send now and then: the window includes its end.
                let offset = generator.chance(0.1) ? 43_200 : Int.random(in: -7200..<72_000, using: &generator)
                events.append(Event(id: UUID(), type: .sessionStart, time: sent.addingTimeInterval(Double(offset)),
                                    userID: user, test: generator.chance(0.1)))
            }
        }
        return events
    }

    /// Tablets that log in (0032's identity merge): anonymous events, then a user logging in on the tablet (one
    /// of the workload's users, who has events elsewhere, or a user new to the app), sometimes a second user
    /// later (a shared tablet), and anonymous events again. Inserted anywhere in the writing order, so a login can
    /// arrive after a later one (the history moves) or after the anonymous events it merges.
    private static func logins(generator: inout SeededGenerator, baseTime: Date, people: String) -> [Event] {
        var events: [Event] = []
        for tablet in 0..<Int.random(in: 0...3, using: &generator) {
            let device = "\(people)t\(tablet)"
            let users = (0..<(generator.chance(0.4) ? 2 : 1)).map { _ in
                generator.chance(0.5) ? "\(people)u\(Int.random(in: 0..<12, using: &generator))"
                                      : "\(people)n\(Int.random(in: 0..<3, using: &generator))"
            }
            let campaign = generator.pick(campaigns)
            let channel = generator.pick([Channel.contentCard, .inAppMessage])
            let at = { (generator: inout SeededGenerator) in
                baseTime.addingTimeInterval(Double(Int.random(in: 0..<(60 * 86_400), using: &generator)))
            }
            for user in [nil] + users + [nil] {
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let type = generator.pick([EventType.impression, .impression, .click, .dismissal, .conversion])
                    events.append(Event(
                        id: UUID(), type: type, channel: type == .conversion ? nil : channel, time: at(&generator),
                        userID: user, deviceID: device, source: type == .conversion ? nil : .campaign(campaign),
                        variantID: type == .conversion ? nil : "v0",
                        conversionName: type == .conversion ? generator.pick(conversions) : nil
                    ))
                }
            }
        }
        return events
    }

    private static func randomEvent(generator: inout SeededGenerator, baseTime: Date, people: String) -> Event {
        let type = generator.pick([EventType.send, .impression, .impression, .impression, .click, .dismissal, .conversion])
        let time = baseTime.addingTimeInterval(Double(Int.random(in: 0..<(60 * 86_400), using: &generator)))
        let user = generator.chance(0.7) ? "\(people)u\(Int.random(in: 0..<12, using: &generator))" : nil
        let device = user == nil || generator.chance(0.5) ? "\(people)d\(Int.random(in: 0..<8, using: &generator))" : nil
        let test = generator.chance(0.08)
        if type == .conversion {
            // The value and currency follow from the time, so that the generator's sequence (and with it every
            // workload) stays what it was before conversions had values: a third without a value, the rest in
            // two currencies or none. Half of those with a value name one of three orders of their user key
            // (some of a product), so that workloads repeat orders, on one device or several.
            let seconds = Int(time.timeIntervalSince1970)
            let value = seconds % 3 == 0 ? nil : Decimal(seconds % 97) / 4
            var conversion = Event(
                id: UUID(), type: .conversion, time: time, userID: user, deviceID: device, test: test,
                conversionName: generator.pick(conversions), value: value,
                currency: value == nil ? nil : [nil, "USD", "EUR"][seconds % 7 % 3]
            )
            if value != nil && seconds % 2 == 0 {
                conversion.orderID = "\(user ?? device ?? "")-o\(seconds / 3 % 3)"
                conversion.productID = seconds % 5 == 0 ? "p1" : nil
            }
            return conversion
        }
        // Two canvases with the same step ids, so that a step is told apart by its canvas too; the canvas
        // follows from the time, as a conversion's value does, so that the generator's sequence stays as it was.
        let source: MessageSource = generator.chance(0.85)
            ? .campaign(generator.pick(campaigns))
            : .canvas(id: Int(time.timeIntervalSince1970) % 2 == 0 ? canvas : "journey",
                      stepID: generator.pick(["s0", "s1"]))
        let control = (type == .send || type == .impression) && generator.chance(0.2)
        return Event(
            id: UUID(), type: type, channel: generator.pick(Channel.allCases), time: time, userID: user,
            deviceID: device, sessionID: generator.chance(0.8) ? "s\(Int.random(in: 0..<3, using: &generator))" : nil,
            source: source, variantID: generator.pick([nil, "v0", "v1"]), control: control,
            messageID: generator.chance(0.5) ? "m\(Int.random(in: 0..<3, using: &generator))" : nil,
            placementID: generator.chance(0.6) ? "p\(Int.random(in: 0..<2, using: &generator))" : nil,
            buttonID: generator.chance(0.5) ? "b\(Int.random(in: 0..<2, using: &generator))" : nil,
            platform: generator.pick([nil, Platform.ios, .android, .web]),
            sdkVersion: generator.pick([nil, "1.0", "2.0"]), appVersion: generator.pick([nil, "3.1"]), test: test
        )
    }
}
