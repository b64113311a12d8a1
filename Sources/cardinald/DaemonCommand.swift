import ArgumentKit
import CardinalCore
import CardinalIngest
import CardinalLifecycle
import CardinalLogging
import Foundation
import Synchronization

/// `cardinald`'s command line: every setting an option with an environment variable and a default, declared
/// like `cardinal`'s commands. The defaults shown are `IngestConfiguration`'s, the one place they are written.
struct DaemonCommand: ParsableCommand {
    static let name = "cardinald"
    static let abstract = "Cardinal's ingest daemon: receives engagement events over HTTP and stores them in PostgreSQL."
    static let discussion: String? = """
        POST /v1/events takes a batch of events (application/json {"events":[…]} or application/x-ndjson, \
        optionally gzip) with 'Authorization: Bearer <ingest key>' and answers once every event is durably \
        stored, a duplicate, or rejected. GET /healthz, /readyz and /metrics serve operations. SIGTERM or \
        SIGINT stops accepting, finishes the batches in flight and exits 0.
        """

    /// The executable: this one command, with `--version`.
    static let tree = CommandTree.root(Self.self, version: CardinalVersion.current)

    static let defaults = IngestConfiguration(databaseURL: "")

    let databaseURL = RequiredOption(
        "database-url", help: "libpq connection string or URI of the Cardinal database.", valueName: "url",
        environment: "CARDINAL_DATABASE_URL")
    let listen = RequiredOption(
        "listen", help: "Address and port to listen on.", valueName: "host:port",
        default: "\(defaults.host):\(defaults.port)", environment: "CARDINAL_LISTEN", parser: .listenAddress)
    let writers = count("writers", "Writer threads, each with its own database connection.", defaults.writers)
    let maxBatchEvents = count("max-batch-events", "Events written in one transaction at most.", defaults.maxBatchEvents)
    let batchDelay = duration("batch-delay", "How long a batch waits for more events before it is written.",
                              defaults.batchDelay)
    let maxQueuedEvents = count("max-queued-events", "Events waiting at most; requests beyond get 503.",
                                defaults.maxQueuedEvents)
    let requestTimeout = duration("request-timeout", "How long a request may wait for its batch before 503.",
                                  defaults.requestTimeout)
    let maxBodyBytes = count("max-body-bytes", "Largest request body as sent (413 beyond).", defaults.maxBodyBytes,
                             valueName: "bytes")
    let maxInflatedBytes = count("max-inflated-bytes", "Largest body after gzip inflation (413 beyond).",
                                 defaults.maxInflatedBytes, valueName: "bytes")
    let maxBodyMemory = count(
        "max-body-memory", "Bytes of request bodies (as sent and inflated) held at once across all requests; a "
            + "request beyond gets 503 + Retry-After. At least --max-body-bytes and --max-inflated-bytes.",
        defaults.maxBodyMemoryBytes, valueName: "bytes")
    let maxEventsPerRequest = count("max-events-per-request", "Events one request may carry (413 beyond).",
                                    defaults.maxEventsPerRequest)
    let maxStoredRejectionsPerRequest = count(
        "max-stored-rejections-per-request",
        "Rejected events of one request kept in rejected_events; the rest are answered, not kept.",
        defaults.maxStoredRejectionsPerRequest, atLeast: 0)
    let maxStoredRejectionsPerAppHour = count(
        "max-stored-rejections-per-app-hour",
        "Rejected events kept per app and clock hour by this daemon; the rest are answered, not kept.",
        defaults.maxStoredRejectionsPerAppHour, atLeast: 0)
    let rateLimitEvents = count(
        "rate-limit-events", "Events per second each app may send, sustained (429 beyond); 0: no limit. "
            + "'cardinal apps limits' overrides it per app.", defaults.rateLimitEventsPerSecond, atLeast: 0)
    let rateLimitRequests = count(
        "rate-limit-requests", "Requests per second each app may send, sustained (429 beyond); 0: no limit. "
            + "Overridable per app.", defaults.rateLimitRequestsPerSecond, atLeast: 0)
    let maxConnectionsPerIP = count(
        "max-connections-per-ip", "Open HTTP connections from one IP address at most; 0: no limit (set it behind a "
            + "reverse proxy, where every client has the proxy's address).", defaults.perIPConnectionLimit, atLeast: 0)
    let requestDeadline = duration(
        "request-deadline", "How long a request may take from its first byte to its answer, body upload and waits "
            + "included; a slower one is cut off or answered 503. 0s: none.", defaults.requestDeadline)
    let maxConnections = count("max-connections", "Open HTTP connections at most.", defaults.connectionLimit)
    let connectionTimeout = duration("connection-timeout", "Idle HTTP connections are closed after this.",
                                     defaults.connectionTimeout)
    let httpThreads = RequiredOption(
        "http-threads", help: "HTTP threads; 0 serves every connection from one epoll thread.", valueName: "n",
        default: String(defaults.httpThreads), environment: "CARDINAL_HTTP_THREADS", parser: .integer(in: 0...1024))
    let keyCacheTTL = duration("key-cache-ttl", "How long a key lookup is cached; a revoked key stops within it.",
                               defaults.keyCacheTTL)
    let retentionDays = Option(
        "retention-days", help: "Events older than this are rejected (time_too_old); default: cardinal.settings. "
            + "Keep it at or below cardinal.settings.retention_days: partitions are not created further back.",
        valueName: "days", environment: "CARDINAL_RETENTION_DAYS", parser: .integer(in: ValidationPolicy.retentionDaysRange))
    let foldInterval = RequiredOption(
        "fold-interval", help: "How often stored events are folded into the report state; 0s turns folding off "
            + "(another daemon or 'cardinal state fold' does it).", valueName: "duration",
        default: defaults.foldInterval.map(text) ?? "0s", environment: "CARDINAL_FOLD_INTERVAL", parser: .duration)
    let spoolDir = RequiredOption(
        "spool-dir", help: "Folder of the disk spool that takes accepted events while the database is unavailable; "
            + "created when missing, locked so that one daemon uses it.", valueName: "path",
        default: defaults.spoolDirectory, environment: "CARDINAL_SPOOL_DIR")
    let spoolMaxBytes = count(
        "spool-max-bytes", "Bytes the spool may hold; beyond, requests get 503 + Retry-After. 0 turns the spool off "
            + "(503 during outages).", defaults.spoolMaxBytes, valueName: "bytes", atLeast: 0)
    let spoolCommitTimeout = Option(
        "spool-commit-timeout", help: "How long a batch may wait for its database commit before it is spooled "
            + "instead; default: half of --request-timeout.", valueName: "duration",
        environment: "CARDINAL_SPOOL_COMMIT_TIMEOUT", parser: .duration)
    let spoolSegmentBytes = count("spool-segment-bytes", "Size at which a spool segment file is closed and a new one "
                                      + "started.", defaults.spoolSegmentBytes, valueName: "bytes")
    let spoolReplayChunkEvents = count(
        "spool-replay-chunk-events", "Spooled events written back per database transaction, about (the replay's "
            + "bounded chunk).", defaults.spoolReplayChunkEvents)
    let shutdownTimeout = duration(
        "shutdown-timeout", "How long SIGTERM may take: the services stop in reverse order of their start, the HTTP "
            + "server first, answering the requests in flight; keep it under systemd's TimeoutStopSec (45s).",
        .seconds(40))
    let logLevel = RequiredOption(
        "log-level", help: "Least severe log lines written to stderr.", valueName: "level",
        default: Logger.Level.info.name, environment: "CARDINAL_LOG_LEVEL", parser: .oneOf(Logger.Level.self))
    let logFormat = RequiredOption(
        "log-format", help: "logfmt, or json for collectors that parse lines.", valueName: "format",
        default: LogFormat.logfmt.rawValue, environment: "CARDINAL_LOG_FORMAT", parser: .oneOf(LogFormat.self))

    /// Runs the daemon's services until SIGTERM or SIGINT, or until one of them fails, then stops them in
    /// reverse order within `--shutdown-timeout`.
    static func run(_ parsed: ParsedCommand<Self>) throws {
        let configuration = try configuration(parsed)
        let logger = Logger(minimumLevel: parsed.logLevel, format: parsed.logFormat)
        let service: IngestService
        do {
            service = try IngestService(configuration: configuration, logger: logger)
        } catch {
            logger.log(.error, "cannot start", ["error": String(describing: error)])
            throw DaemonFailure()
        }
        let group = ServiceGroup(services: service.services, shutdownTimeout: parsed.shutdownTimeout, logger: logger)
        let signalWaiter = Thread {
            TerminationSignal.wait(logger: logger)
            group.triggerGracefulShutdown()
        }
        signalWaiter.name = "cardinal-signals"
        signalWaiter.start()
        let failures = Self.runToEnd(group)
        service.close()
        guard failures.isEmpty else {
            throw DaemonFailure()
        }
    }

    /// Runs the group on the Swift concurrency pool and blocks the calling (main) thread until it has stopped.
    private static func runToEnd(_ group: ServiceGroup) -> [ServiceFailure] {
        let failures = Mutex<[ServiceFailure]>([])
        let stopped = DispatchSemaphore(value: 0)
        Task.detached {
            let reported = await group.run()
            failures.withLock { $0 = reported }
            stopped.signal()
        }
        stopped.wait()
        return failures.withLock { $0 }
    }

    /// The daemon could not start, or a service failed; the log says which and why.
    struct DaemonFailure: Error {}
}
