/// Decides which of many alike log lines are written: the first of each key at once, the rest counted and
/// written as one summary line per key and interval, so that a flood (an app over its rate limit, a client
/// with a revoked key) costs a line a minute instead of a line a request, and the first line still shows at
/// once what happened.
///
/// A pure state machine with the time passed in, as postgres-nio's `PoolStateMachine`: the ``Logger`` keeps
/// it behind a lock and writes what it returns.
struct RepeatSummarizer {
    /// What makes two lines alike: level, message and the fields that name who and why (app, key or remote
    /// address and reason), not the ones that differ on every line (request ids).
    struct Key: Hashable {
        var level: Logger.Level
        var message: String
        var fields: [LogField]
    }

    /// What to do with a line just recorded.
    enum Decision: Equatable {
        /// Write it: the first of its key in the interval.
        case write
        /// Count it into the key's summary.
        case count
    }

    /// The interval of a key under way: when it ends, and how many lines it counted.
    private struct Window {
        var ends: ContinuousClock.Instant
        var repeats: Int
    }

    /// How long a key's lines are counted before the count is written.
    let interval: Duration
    /// Keys counted at once at most; lines of further keys are counted per level and message only, so that an
    /// attacker cycling through addresses cannot grow the logger's memory without bound.
    let maxKeys: Int
    private var windows: [Key: Window] = [:]
    /// The earliest end among `windows`, so that ``due(at:)`` is a comparison when nothing is due.
    private var nextEnd: ContinuousClock.Instant?

    init(interval: Duration, maxKeys: Int = 1000) {
        precondition(interval > .zero && maxKeys > 0, "a summarizer needs an interval and room for a key")
        self.interval = interval
        self.maxKeys = maxKeys
    }

    /// The number of keys being counted.
    var keyCount: Int { windows.count }

    /// Records a line of `key` at `now`.
    mutating func record(_ key: Key, at now: ContinuousClock.Instant) -> Decision {
        let key = windows[key] != nil || windows.count < maxKeys ? key : Self.overflow(of: key)
        if var window = windows[key] {
            window.repeats += 1
            windows[key] = window
            return .count
        }
        let ends = now + interval
        windows[key] = Window(ends: ends, repeats: 0)
        nextEnd = min(nextEnd ?? ends, ends)
        return .write
    }

    /// The summaries of the keys whose interval ended by `now`, oldest first. A key that counted lines starts
    /// a new interval, so that a flood goes on being summarised, one line per interval; a key that counted
    /// none is forgotten, and its next line is written at once.
    mutating func due(at now: ContinuousClock.Instant) -> [RepeatSummary] {
        guard let nextEnd, nextEnd <= now else {
            return []
        }
        var ended: [(key: Key, window: Window)] = []
        for (key, window) in windows where window.ends <= now {
            ended.append((key, window))
            windows[key] = window.repeats > 0 ? Window(ends: now + interval, repeats: 0) : nil
        }
        self.nextEnd = windows.values.map(\.ends).min()
        return Self.summaries(of: ended)
    }

    /// The summaries of every key that counted lines, whether or not its interval ended; forgets every key.
    /// For shutdown, so that no count is lost.
    mutating func drain() -> [RepeatSummary] {
        let all = windows.map { (key: $0.key, window: $0.value) }
        windows = [:]
        nextEnd = nil
        return Self.summaries(of: all)
    }

    private static func summaries(of ended: [(key: Key, window: Window)]) -> [RepeatSummary] {
        ended.filter { $0.window.repeats > 0 }
            .sorted { ($0.window.ends, $0.key.message, "\($0.key.fields)") < ($1.window.ends, $1.key.message, "\($1.key.fields)") }
            .map { RepeatSummary(key: $0.key, repeats: $0.window.repeats) }
    }

    /// The key that lines of keys beyond ``maxKeys`` share: their level and message only.
    static func overflow(of key: Key) -> Key {
        Key(level: key.level, message: key.message, fields: [LogField("log.grouped", "too_many_keys")])
    }
}
