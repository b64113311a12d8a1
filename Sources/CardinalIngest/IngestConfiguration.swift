import MicroHTTP
import PostgresClient

/// Everything `cardinald` can be told, with the defaults it runs with: the one place those defaults are
/// written. The HTTP settings start from ``MicroHTTP/HTTPServerConfiguration``'s, and `cardinald --help`
/// prints these values.
public struct IngestConfiguration: Sendable {
    private static let http = HTTPServerConfiguration()

    /// libpq connection string or URI of the database.
    public var databaseURL: String
    /// Address to listen on.
    public var host = http.host
    /// Port to listen on; 0 picks a free one (tests).
    public var port: UInt16 = http.port
    /// Largest request body accepted as sent, in bytes (413 beyond).
    public var maxBodyBytes = http.maxBodyBytes
    /// Largest body after gzip inflation, in bytes (413 beyond). The inflated body is held whole while it is
    /// decoded, so this is most of the memory one request can take.
    public var maxInflatedBytes = 16 * 1024 * 1024
    /// Bytes of request bodies, as received and as inflated, held at once across all requests; a request that
    /// would pass it is answered 503 + Retry-After. With the daemon's own ~33 MB this keeps it near its 64 MB
    /// goal. At least `maxBodyBytes` and `maxInflatedBytes`.
    public var maxBodyMemoryBytes = 24 * 1024 * 1024
    /// Events (valid or not) one request may carry; a body with more is answered 413 and nothing of it is stored.
    public var maxEventsPerRequest = 2000
    /// Rejected events of one request stored in `cardinal.rejected_events`; the rest are answered but not kept.
    public var maxStoredRejectionsPerRequest = 100
    /// Rejected events stored per app and clock hour, by this daemon; the rest are answered but not kept.
    public var maxStoredRejectionsPerAppHour = 10_000
    /// Events per second each app may send, sustained (429 beyond); 0: no limit. An app's row in
    /// `cardinal.ingest_rate_limits` overrides it.
    public var rateLimitEventsPerSecond = 10_000
    /// Requests per second each app may send, sustained (429 beyond); 0: no limit. Overridable per app.
    public var rateLimitRequestsPerSecond = 1000
    /// Open connections at most.
    public var connectionLimit = http.connectionLimit
    /// Open connections from one IP address at most; 0: no limit (behind a reverse proxy).
    public var perIPConnectionLimit = http.perIPConnectionLimit
    /// Seconds of inactivity after which a connection is closed.
    public var connectionTimeout = http.connectionTimeout
    /// How long a request may take from its first byte to its answer, whatever it waits for: long enough for an
    /// 8 MiB body over a slow mobile link and a `requestTimeout` wait for its batch.
    public var requestDeadline: Duration = .seconds(60)
    /// Threads serving HTTP (libmicrohttpd's thread pool); 0 uses one epoll thread.
    public var httpThreads = http.threadPoolSize
    /// Writer threads, each with its own database connection.
    public var writers = 2
    /// Events per batch at most.
    public var maxBatchEvents = 5000
    /// How long a batch may wait for more events before it is written.
    public var batchDelay: Duration = .milliseconds(2)
    /// Events waiting at most; requests beyond are answered 503.
    public var maxQueuedEvents = 200_000
    /// How long a request may wait for a writer before it is answered 503.
    public var requestTimeout: Duration = .seconds(10)
    /// How long a key lookup is remembered; a revoked key stops working within it.
    public var keyCacheTTL: Duration = .seconds(5)
    /// How long an unknown key is remembered (at most `keyCacheTTL`): a new key works within it.
    public var unknownKeyCacheTTL: Duration = .seconds(1)
    /// Key lookups run at once, each on a thread and a database connection of its own.
    public var keyLookupThreads = 2
    /// Days of events accepted; `nil` reads `cardinal.settings.retention_days` at start and every minute
    /// after, so ingest and partition retention agree.
    public var retentionDays: Int?
    /// How often stored events are folded into the report state; `nil` leaves folding to another daemon or to
    /// `cardinal state fold`. Every 5 s, not every second: reports are exact either way (they add the events
    /// not folded yet), and fewer, larger folds cost the ingest less (ingest bench, two sets of three runs at
    /// each interval: median ratio to `COPY` 0.93 and 1.01 against 0.75 and 0.78, with a median maximum folding
    /// lag at full load of 6.3–6.6 s against 3.5–6.1 s).
    public var foldInterval: Duration? = .seconds(5)
    /// Folder of the disk spool that takes batches while the database is unavailable (created when missing,
    /// locked against a second daemon).
    public var spoolDirectory = "/var/lib/cardinald/spool"
    /// Bytes the spool may hold; beyond, requests get 503 as without a spool. 0 turns the spool off.
    public var spoolMaxBytes = 1 << 30
    /// Size at which a spool segment is sealed and a new one started.
    public var spoolSegmentBytes = 16 << 20
    /// How long a batch may wait for its commit before it is spooled instead; `nil`: half of `requestTimeout`.
    public var spoolCommitTimeout: Duration?
    /// Events (and rejections) per replay transaction, about.
    public var spoolReplayChunkEvents = 5000

    /// What a connection of the daemon for `role` connects with: `databaseURL` plus libpq keepalives,
    /// `tcp_user_timeout` and `connect_timeout` (`ConnectionString.deadPeerDetection`), so that a silent network
    /// to the database is noticed in seconds, not after the kernel's two hours, and the role's
    /// `application_name`; a parameter `databaseURL` sets wins.
    func connectionString(for role: DatabaseConnectionRole) -> String {
        ConnectionString.adding(
            ConnectionString.deadPeerDetection + [("application_name", role.applicationName)], to: databaseURL)
    }

    /// Defaults for everything but the database.
    public init(databaseURL: String) {
        self.databaseURL = databaseURL
    }
}
