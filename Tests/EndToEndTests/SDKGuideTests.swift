import Foundation
import Testing
import TestSupport

/// docs/sdk-guide.md against the real daemon: every Cardinal event the guide gives for an SDK call, posted in one
/// batch, is accepted or refused with the code its "today" column names, and each accepted one is counted by the
/// report the guide names.
@Suite struct SDKGuideTests {
    /// One example of the guide: its SDK call, the event's JSON (without id, time and user) and the verdict.
    private struct Example {
        let call: String
        let json: String
        /// `nil` when the guide says accepted, else the rejection code it names.
        let refusal: String?
    }

    /// The table rows of the guide that give an event, in order.
    private static func examples() throws -> [Example] {
        let guide = try String(
            contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/sdk-guide.md"), encoding: .utf8
        )
        return guide.split(separator: "\n").compactMap { line -> Example? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            // "| call | methods | `{…}` | today |" splits into six cells, the outer two empty.
            guard cells.count == 6, cells[3].hasPrefix("`{"), cells[3].hasSuffix("}`") else {
                return nil
            }
            let refusal = cells[4].hasPrefix("refused (`")
                ? cells[4].dropFirst("refused (`".count).prefix { $0 != "`" }.description : nil
            return Example(call: cells[1], json: String(cells[3].dropFirst().dropLast()), refusal: refusal)
        }
    }

    @Test("Every event of the SDK guide is accepted or refused by the daemon as the guide says")
    func guideExamplesAsTheDaemonJudgesThem() throws {
        let examples = try Self.examples()
        // Content cards and in-app messages 7, banners, flags and push 8, app events 4 (changeUser has none).
        #expect(examples.count == 19)
        let time = EpochMilliseconds.rfc3339(Date.now.addingTimeInterval(-3_600))
        let events = examples.map { example in
            let id = UUID()
            let json = #"{"id":"\#(id.uuidString)","time":"\#(time)","user_id":"u1","device_id":"d1","#
                + example.json.dropFirst()
            return TestEvent(id: id, json: json)
        }
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let result = try fixture.client(of: daemon).ingest(events)

        let refusals = Dictionary(uniqueKeysWithValues: result.errors.map { ($0.index, $0.code) })
        for (index, example) in examples.enumerated() {
            #expect(refusals[index] == example.refusal, "\(example.call): \(example.json)")
        }
        #expect(result.accepted == examples.filter { $0.refusal == nil }.count)
    }

    /// Where one accepted example of the guide is counted: the report and the figure, and its value by hand.
    private struct Counted: Sendable {
        let call: String
        let figure: String
        let expected: Double
        let actual: @Sendable (SDKGuideReports) throws -> Double?
    }

    /// Every accepted example, posted as u1 (device d1) two hours ago, one minute apart in the guide's order
    /// (impressions first), beside what the backend posts: a push send of `winback` to u1 and to u2, whose
    /// `session_start` example stands for an app open after the push (u2 does not tap it). Each example is the only
    /// event of its campaign, channel and part that its figure counts, so every figure below is 1 or its own value.
    private static let counted: [Counted] = [
        Counted(call: "card impression", figure: "spring impressions", expected: 1) { $0.row("spring")["impressions"] },
        Counted(call: "card click", figure: "spring clicks", expected: 1) { $0.row("spring")["clicks"] },
        Counted(call: "card dismissal", figure: "spring dismissals", expected: 1) { $0.row("spring")["dismissals"] },
        Counted(call: "in-app message impression", figure: "onboarding impressions", expected: 1) {
            $0.row("onboarding")["impressions"]
        },
        Counted(call: "in-app message click", figure: "onboarding body clicks (--by button_id, no button)", expected: 1) {
            $0.part("onboarding", button: nil)["clicks"]
        },
        Counted(call: "in-app message button click", figure: "onboarding button 0 clicks", expected: 1) {
            $0.part("onboarding", button: "0")["clicks"]
        },
        Counted(call: "banner impression", figure: "promo impressions", expected: 1) { $0.row("promo")["impressions"] },
        // A banner is received when seen: its impression makes the recipient its click's rate divides by.
        Counted(call: "banner click", figure: "promo unique click rate", expected: 1) {
            $0.row("promo")["unique_click_rate"]
        },
        Counted(call: "feature-flag impression", figure: "checkout_v2 unique recipients", expected: 1) {
            $0.row("checkout_v2")["unique_recipients"]
        },
        Counted(call: "push open", figure: "winback body direct opens (--by button_id, no button)", expected: 1) {
            $0.part("winback", button: nil)["direct_opens"]
        },
        // One device reported the push received, of the backend's two sends.
        Counted(call: "push received", figure: "winback delivery rate", expected: 0.5) {
            $0.row("winback")["delivery_rate"]
        },
        Counted(call: "push dismissed", figure: "winback dismissals", expected: 1) { $0.row("winback")["dismissals"] },
        Counted(call: "push action button", figure: "winback button MANAGE direct opens", expected: 1) {
            $0.part("winback", button: "MANAGE")["direct_opens"]
        },
        // 9.99 × 2, within spring's 1-day window after u1's card impression.
        Counted(call: "purchase", figure: "spring purchase revenue USD", expected: 19.98) {
            $0.conversion("spring", "purchase")["revenue_usd"]
        },
        Counted(call: "e-commerce order", figure: "spring order revenue USD", expected: 224.96) {
            $0.conversion("spring", "ecommerce.order_placed")["revenue_usd"]
        },
        Counted(call: "custom event", figure: "spring signup converters", expected: 1) {
            $0.conversion("spring", "signup")["converters"]
        },
        // u2 opened the app 60 minutes after winback's send without tapping it (within the 12-hour window).
        Counted(call: "session start", figure: "winback influenced opens", expected: 1) {
            $0.row("winback")["influenced_opens"]
        },
    ]

    @Test("Every event the SDK guide accepts, posted to the daemon, is counted by the report the guide names")
    func guideExamplesCountedInReports() throws {
        let accepted = try Self.examples().filter { $0.refusal == nil }
        #expect(Set(accepted.map(\.call)) == Set(Self.counted.map(\.call)), "the accepted examples and the checked ones differ")

        let start = Date.now.addingTimeInterval(-7_200)
        func event(_ json: Substring, minute: Int, user: String = "u1", device: String = "d1") -> TestEvent {
            let id = UUID()
            let time = EpochMilliseconds.rfc3339(start.addingTimeInterval(Double(minute) * 60))
            return TestEvent(id: id, json: #"{"id":"\#(id.uuidString)","time":"\#(time)","user_id":"\#(user)","#
                + #""device_id":"\#(device)","# + json.dropFirst())
        }
        let send = #"{"type":"send","channel":"push","campaign_id":"winback","variant_id":"v1"}"#
        let sessionStart = accepted.first { $0.call == "session start" }
        let impressionsFirst = accepted.filter { $0.json.contains(#""type":"impression""#) }
            + accepted.filter { !$0.json.contains(#""type":"impression""#) && $0.call != "session start" }
        var events = [event(send[...], minute: 0), event(send[...], minute: 0, user: "u2", device: "d2")]
        events += impressionsFirst.enumerated().map { event($1.json[...], minute: 1 + $0) }
        events.append(event(try #require(sessionStart).json[...], minute: 60, user: "u2", device: "d2"))

        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        #expect(try fixture.client(of: daemon).ingest(events).counts == .accepted(events.count))
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", "spring",
            "--conversions", "purchase,ecommerce.order_placed,signup", "--window", "1d",
            "--database-url", fixture.database.url,
        ])

        let reports = try SDKGuideReports(fixture: fixture, from: start)
        for counted in Self.counted {
            let actual = try counted.actual(reports)
            #expect(actual.map { abs($0 - counted.expected) < 1e-9 } == true,
                    "\(counted.call): \(counted.figure) is \(actual.map(String.init(describing:)) ?? "missing")")
        }
    }
}

/// The reports `SDKGuideTests` reads, as the built `cardinal` prints them in JSON: unique impressions, the same by
/// `button_id`, and the conversions that come with them.
private struct SDKGuideReports {
    private let rows: [[String: Any]]
    private let parts: [[String: Any]]
    private let conversions: [[String: Any]]

    init(fixture: IngestFixture, from start: Date) throws {
        func report(_ extra: [String]) throws -> [String: Any] {
            let output = try CardinalCLI.succeed(
                ["report", "unique-impressions", "--app", IngestFixture.appName,
                 "--from", String(EpochMilliseconds.rfc3339(start).prefix(10)),
                 "--to", String(EpochMilliseconds.rfc3339(Date.now).prefix(10)),
                 "--format", "json", "--database-url", fixture.database.url] + extra
            )
            return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        }
        let whole = try report([])
        rows = try #require(whole["rows"] as? [[String: Any]])
        conversions = try #require(whole["conversions"] as? [[String: Any]])
        parts = try #require(try report(["--by", "button_id"])["rows"] as? [[String: Any]])
    }

    /// The figures of the campaign's one row, as numbers.
    func row(_ campaign: String) -> [String: Double] {
        Self.numbers(rows.first { $0["campaign_id"] as? String == campaign })
    }

    /// The figures of the campaign's row for one button (`nil`: the message's body, whose `button_id` is null).
    func part(_ campaign: String, button: String?) -> [String: Double] {
        Self.numbers(parts.first { $0["campaign_id"] as? String == campaign && $0["button_id"] as? String == button })
    }

    /// The figures of the campaign's conversion event, with its USD revenue as `revenue_usd`.
    func conversion(_ campaign: String, _ event: String) -> [String: Double] {
        let row = conversions.first { $0["campaign_id"] as? String == campaign && $0["conversion_event"] as? String == event }
        var figures = Self.numbers(row)
        figures["revenue_usd"] = ((row?["revenue"] as? [String: Any])?["USD"] as? NSNumber)?.doubleValue
        return figures
    }

    private static func numbers(_ row: [String: Any]?) -> [String: Double] {
        (row ?? [:]).compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }
}
