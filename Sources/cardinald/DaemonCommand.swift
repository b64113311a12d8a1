import ArgumentKit
import CardinalCore
import CardinalIngest
import CardinalLogging

/// `cardinald`'s command line: every setting as a flag with an environment variable and a default. The
/// defaults shown are `IngestConfiguration`'s, the one place they are written.
enum DaemonCommand {
    private static let defaults = IngestConfiguration(databaseURL: "")

    /// `250ms`, `30s`, `5m` or `1h`: the largest unit that states `duration` exactly, as `--help` shows it.
    static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)] where milliseconds % size == 0 && milliseconds > 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    static let spec = CommandSpec(
        name: "cardinald",
        abstract: "Cardinal's ingest daemon: receives engagement events over HTTP and stores them in PostgreSQL.",
        discussion: """
            POST /v1/events takes a batch of events (application/json {"events":[…]} or application/x-ndjson, \
            optionally gzip) with 'Authorization: Bearer <ingest key>' and answers once every event is durably \
            stored, a duplicate, or rejected. GET /healthz, /readyz and /metrics serve operations. SIGTERM or \
            SIGINT stops accepting, finishes the batches in flight and exits 0.
            """,
        options: [
            OptionSpec("database-url", help: "libpq connection string or URI of the Cardinal database.",
                       valueName: "url", environment: "CARDINAL_DATABASE_URL", isRequired: true),
            OptionSpec("listen", help: "Address and port to listen on.", valueName: "host:port",
                       default: "\(defaults.host):\(defaults.port)", environment: "CARDINAL_LISTEN"),
            OptionSpec("writers", help: "Writer threads, each with its own database connection.", valueName: "n",
                       default: String(defaults.writers), environment: "CARDINAL_WRITERS"),
            OptionSpec("max-batch-events", help: "Events written in one transaction at most.", valueName: "n",
                       default: String(defaults.maxBatchEvents), environment: "CARDINAL_MAX_BATCH_EVENTS"),
            OptionSpec("batch-delay", help: "How long a batch waits for more events before it is written.",
                       valueName: "duration", default: text(defaults.batchDelay), environment: "CARDINAL_BATCH_DELAY"),
            OptionSpec("max-queued-events", help: "Events waiting at most; requests beyond get 503.",
                       valueName: "n", default: String(defaults.maxQueuedEvents), environment: "CARDINAL_MAX_QUEUED_EVENTS"),
            OptionSpec("request-timeout", help: "How long a request may wait for its batch before 503.",
                       valueName: "duration", default: text(defaults.requestTimeout), environment: "CARDINAL_REQUEST_TIMEOUT"),
            OptionSpec("max-body-bytes", help: "Largest request body as sent (413 beyond).", valueName: "bytes",
                       default: String(defaults.maxBodyBytes), environment: "CARDINAL_MAX_BODY_BYTES"),
            OptionSpec("max-inflated-bytes", help: "Largest body after gzip inflation (413 beyond).",
                       valueName: "bytes", default: String(defaults.maxInflatedBytes), environment: "CARDINAL_MAX_INFLATED_BYTES"),
            OptionSpec("max-body-memory",
                       help: "Bytes of request bodies (as sent and inflated) held at once across all requests; a request beyond gets 503 + Retry-After. At least --max-body-bytes and --max-inflated-bytes.",
                       valueName: "bytes", default: String(defaults.maxBodyMemoryBytes), environment: "CARDINAL_MAX_BODY_MEMORY"),
            OptionSpec("max-events-per-request", help: "Events one request may carry (413 beyond).", valueName: "n",
                       default: String(defaults.maxEventsPerRequest), environment: "CARDINAL_MAX_EVENTS_PER_REQUEST"),
            OptionSpec("max-stored-rejections-per-request",
                       help: "Rejected events of one request kept in rejected_events; the rest are answered, not kept.",
                       valueName: "n", default: String(defaults.maxStoredRejectionsPerRequest),
                       environment: "CARDINAL_MAX_STORED_REJECTIONS_PER_REQUEST"),
            OptionSpec("max-stored-rejections-per-app-hour",
                       help: "Rejected events kept per app and clock hour by this daemon; the rest are answered, not kept.",
                       valueName: "n", default: String(defaults.maxStoredRejectionsPerAppHour),
                       environment: "CARDINAL_MAX_STORED_REJECTIONS_PER_APP_HOUR"),
            OptionSpec("rate-limit-events",
                       help: "Events per second each app may send, sustained (429 beyond); 0: no limit. 'cardinal apps limits' overrides it per app.",
                       valueName: "n", default: String(defaults.rateLimitEventsPerSecond), environment: "CARDINAL_RATE_LIMIT_EVENTS"),
            OptionSpec("rate-limit-requests",
                       help: "Requests per second each app may send, sustained (429 beyond); 0: no limit. Overridable per app.",
                       valueName: "n", default: String(defaults.rateLimitRequestsPerSecond), environment: "CARDINAL_RATE_LIMIT_REQUESTS"),
            OptionSpec("max-connections-per-ip",
                       help: "Open HTTP connections from one IP address at most; 0: no limit (set it behind a reverse proxy, where every client has the proxy's address).",
                       valueName: "n", default: String(defaults.perIPConnectionLimit), environment: "CARDINAL_MAX_CONNECTIONS_PER_IP"),
            OptionSpec("request-deadline",
                       help: "How long a request may take from its first byte to its answer, body upload and waits included; a slower one is cut off or answered 503. 0s: none.",
                       valueName: "duration", default: text(defaults.requestDeadline), environment: "CARDINAL_REQUEST_DEADLINE"),
            OptionSpec("max-connections", help: "Open HTTP connections at most.", valueName: "n",
                       default: String(defaults.connectionLimit), environment: "CARDINAL_MAX_CONNECTIONS"),
            OptionSpec("connection-timeout", help: "Idle HTTP connections are closed after this.",
                       valueName: "duration", default: text(defaults.connectionTimeout), environment: "CARDINAL_CONNECTION_TIMEOUT"),
            OptionSpec("http-threads", help: "HTTP threads; 0 serves every connection from one epoll thread.",
                       valueName: "n", default: String(defaults.httpThreads), environment: "CARDINAL_HTTP_THREADS"),
            OptionSpec("key-cache-ttl", help: "How long a key lookup is cached; a revoked key stops within it.",
                       valueName: "duration", default: text(defaults.keyCacheTTL), environment: "CARDINAL_KEY_CACHE_TTL"),
            OptionSpec("retention-days",
                       help: "Events older than this are rejected (time_too_old); default: cardinal.settings. Keep it at or below cardinal.settings.retention_days: partitions are not created further back.",
                       valueName: "days", environment: "CARDINAL_RETENTION_DAYS"),
            OptionSpec("fold-interval",
                       help: "How often stored events are folded into the report state; 0s turns folding off (another daemon or 'cardinal state fold' does it).",
                       valueName: "duration", default: defaults.foldInterval.map(text) ?? "0s", environment: "CARDINAL_FOLD_INTERVAL"),
            OptionSpec("spool-dir",
                       help: "Folder of the disk spool that takes accepted events while the database is unavailable; created when missing, locked so that one daemon uses it.",
                       valueName: "path", default: defaults.spoolDirectory, environment: "CARDINAL_SPOOL_DIR"),
            OptionSpec("spool-max-bytes",
                       help: "Bytes the spool may hold; beyond, requests get 503 + Retry-After. 0 turns the spool off (503 during outages).",
                       valueName: "bytes", default: String(defaults.spoolMaxBytes), environment: "CARDINAL_SPOOL_MAX_BYTES"),
            OptionSpec("spool-commit-timeout",
                       help: "How long a batch may wait for its database commit before it is spooled instead; default: half of --request-timeout.",
                       valueName: "duration", environment: "CARDINAL_SPOOL_COMMIT_TIMEOUT"),
            OptionSpec("spool-segment-bytes", help: "Size at which a spool segment file is closed and a new one started.",
                       valueName: "bytes", default: String(defaults.spoolSegmentBytes), environment: "CARDINAL_SPOOL_SEGMENT_BYTES"),
            OptionSpec("spool-replay-chunk-events",
                       help: "Spooled events written back per database transaction, about (the replay's bounded chunk).",
                       valueName: "n", default: String(defaults.spoolReplayChunkEvents), environment: "CARDINAL_SPOOL_REPLAY_CHUNK_EVENTS"),
            OptionSpec("log-level", help: "Least severe log lines written to stderr.", valueName: "level",
                       default: "info", environment: "CARDINAL_LOG_LEVEL",
                       allowedValues: Logger.Level.allCases.map(\.name)),
            OptionSpec("log-format", help: "logfmt, or json for collectors that parse lines.", valueName: "format",
                       default: LogFormat.logfmt.rawValue, environment: "CARDINAL_LOG_FORMAT",
                       allowedValues: LogFormat.allCases.map(\.rawValue)),
        ],
        version: CardinalVersion.current
    )

    /// Turns parsed arguments into a configuration.
    /// - Throws: `UsageError` for a value that does not make sense.
    static func configuration(from arguments: ParsedArguments) throws(UsageError) -> (IngestConfiguration, Logger) {
        var configuration = IngestConfiguration(databaseURL: arguments.option("database-url") ?? "")
        let listen = arguments.option("listen") ?? "\(defaults.host):\(defaults.port)"
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]),
              colon != listen.startIndex
        else {
            throw arguments.usageError("--listen must be host:port, such as 127.0.0.1:8080 or 0.0.0.0:8080; got '\(listen)'")
        }
        configuration.host = String(listen[..<colon])
        configuration.port = port
        configuration.writers = try positive("writers", arguments)
        configuration.maxBatchEvents = try positive("max-batch-events", arguments)
        configuration.batchDelay = try arguments.duration("batch-delay") ?? configuration.batchDelay
        configuration.maxQueuedEvents = try positive("max-queued-events", arguments)
        configuration.requestTimeout = try arguments.duration("request-timeout") ?? configuration.requestTimeout
        configuration.maxBodyBytes = try positive("max-body-bytes", arguments)
        configuration.maxInflatedBytes = try positive("max-inflated-bytes", arguments)
        configuration.connectionLimit = try positive("max-connections", arguments)
        configuration.maxBodyMemoryBytes = try positive("max-body-memory", arguments)
        guard configuration.maxBodyMemoryBytes >= max(configuration.maxBodyBytes, configuration.maxInflatedBytes) else {
            throw arguments.usageError(
                "--max-body-memory (\(configuration.maxBodyMemoryBytes)) must be at least --max-body-bytes and "
                    + "--max-inflated-bytes, or the largest request could never be read")
        }
        configuration.maxEventsPerRequest = try positive("max-events-per-request", arguments)
        guard configuration.maxEventsPerRequest <= configuration.maxBatchEvents else {
            throw arguments.usageError(
                "--max-events-per-request (\(configuration.maxEventsPerRequest)) must not exceed --max-batch-events "
                    + "(\(configuration.maxBatchEvents)): a request is written in one batch")
        }
        configuration.maxStoredRejectionsPerRequest = try notNegative("max-stored-rejections-per-request", arguments)
        configuration.maxStoredRejectionsPerAppHour = try notNegative("max-stored-rejections-per-app-hour", arguments)
        configuration.rateLimitEventsPerSecond = try notNegative("rate-limit-events", arguments)
        configuration.rateLimitRequestsPerSecond = try notNegative("rate-limit-requests", arguments)
        configuration.perIPConnectionLimit = try notNegative("max-connections-per-ip", arguments)
        configuration.requestDeadline = try arguments.duration("request-deadline") ?? configuration.requestDeadline
        configuration.connectionTimeout = try arguments.duration("connection-timeout") ?? configuration.connectionTimeout
        configuration.httpThreads = try arguments.integer("http-threads") ?? configuration.httpThreads
        guard (0...1024).contains(configuration.httpThreads) else {
            throw arguments.usageError("--http-threads must be between 0 and 1024, got \(configuration.httpThreads)")
        }
        configuration.keyCacheTTL = try arguments.duration("key-cache-ttl") ?? configuration.keyCacheTTL
        if let days = try arguments.integer("retention-days") {
            guard ValidationPolicy.retentionDaysRange.contains(days) else {
                throw arguments.usageError("--retention-days must be between 1 and 36500, got \(days)")
            }
            configuration.retentionDays = days
        }
        let foldInterval = try arguments.duration("fold-interval") ?? configuration.foldInterval ?? .zero
        configuration.foldInterval = foldInterval > .zero ? foldInterval : nil
        configuration.spoolDirectory = arguments.option("spool-dir") ?? configuration.spoolDirectory
        guard !configuration.spoolDirectory.isEmpty else {
            throw arguments.usageError("--spool-dir must not be empty; use --spool-max-bytes 0 to turn the spool off")
        }
        configuration.spoolMaxBytes = try arguments.integer("spool-max-bytes") ?? configuration.spoolMaxBytes
        guard configuration.spoolMaxBytes >= 0 else {
            throw arguments.usageError("--spool-max-bytes must be 0 (off) or more, got \(configuration.spoolMaxBytes)")
        }
        configuration.spoolCommitTimeout = try arguments.duration("spool-commit-timeout")
        configuration.spoolSegmentBytes = try positive("spool-segment-bytes", arguments)
        configuration.spoolReplayChunkEvents = try positive("spool-replay-chunk-events", arguments)
        let level = Logger.Level.allCases.first { $0.name == arguments.option("log-level") } ?? .info
        let format = arguments.option("log-format").flatMap(LogFormat.init(rawValue:)) ?? .logfmt
        return (configuration, Logger(minimumLevel: level, format: format))
    }

    private static func notNegative(_ name: String, _ arguments: ParsedArguments) throws(UsageError) -> Int {
        try integer(name, atLeast: 0, arguments)
    }

    private static func positive(_ name: String, _ arguments: ParsedArguments) throws(UsageError) -> Int {
        try integer(name, atLeast: 1, arguments)
    }

    private static func integer(_ name: String, atLeast least: Int, _ arguments: ParsedArguments) throws(UsageError) -> Int {
        guard let value = try arguments.integer(name) else {
            throw arguments.usageError("--\(name) needs a value")
        }
        guard value >= least else {
            throw arguments.usageError(least == 1 ? "--\(name) must be greater than 0, got \(value)"
                                                  : "--\(name) must be \(least) or more, got \(value)")
        }
        return value
    }
}
