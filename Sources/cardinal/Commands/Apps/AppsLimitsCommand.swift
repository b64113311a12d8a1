import ArgumentKit
import CardinalStore

/// `cardinal apps limits`.
struct AppsLimitsCommand: DatabaseCommand {
    static let name = "limits"
    static let abstract = "Show or set how fast an app may send events (cardinald answers 429 beyond)."
    static let discussion: String? = """
        Each cardinald keeps a token bucket per app for events and one for requests; a request beyond \
        either is answered 429 with Retry-After and nothing of it is stored. Without a setting here an \
        app gets the daemon's --rate-limit-events and --rate-limit-requests. A rate of 0 lifts the \
        limit; 'default' goes back to the daemon's. Daemons pick a change up within --key-cache-ttl. \
        Prints the limits in force after the change.
        """

    /// A rate: `nil` for `default` (the daemon's), else a count of 0 (unlimited) or more per second.
    private static let rate = ValueParser<Int?>(expectation: "expected a count of 0 or more, or 'default'") { text in
        if text == "default" {
            return .some(nil)
        }
        guard let value = Int(text), value >= 0, value <= Int(Int32.max) else {
            return nil
        }
        return .some(value)
    }

    let appName = Argument("name", help: "The app.")
    let databaseURL = CommonOptions.databaseURL
    let eventsPerSecond = Option("events-per-second", help: "Events per second, sustained, or 'default'.",
                                 valueName: "n", parser: rate)
    let requestsPerSecond = Option("requests-per-second", help: "Requests per second, sustained, or 'default'.",
                                   valueName: "n", parser: rate)

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let store = AppStore(connection: try parsed.connect())
        let app = try store.find(name: parsed.appName)
        var limits = try store.rateLimits(of: app)
        if let events = parsed.eventsPerSecond {
            limits.eventsPerSecond = events
        }
        if let requests = parsed.requestsPerSecond {
            limits.requestsPerSecond = requests
        }
        if parsed.eventsPerSecond != nil || parsed.requestsPerSecond != nil {
            try store.setRateLimits(limits, of: app)
        }
        let shown = { (rate: Int?) in rate.map { $0 == 0 ? "unlimited" : String($0) } ?? "default" }
        Console.print("events_per_second=\(shown(limits.eventsPerSecond)) requests_per_second=\(shown(limits.requestsPerSecond))\n")
    }
}
