import PostgresClient

/// Everything `cardinald` can be told, with the defaults it runs with.
public struct IngestConfiguration: Sendable {
    /// libpq connection string or URI of the database.
    public var databaseURL: String
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (tests).
    public var port: UInt16 = 8080
    /// Largest request body accepted as sent, in bytes (413 beyond).
    public var maxBodyBytes = 8 * 1024 * 1024
    /// Largest body after gzip inflation, in bytes (413 beyond).
    public var maxInflatedBytes = 32 * 1024 * 1024
    /// Open connections at most.
    public var connectionLimit = 1024
    /// Seconds of inactivity after which a connection is closed.
    public var connectionTimeout: Duration = .seconds(30)
    /// Threads serving HTTP (libmicrohttpd's thread pool); 0 uses one epoll thread.
    public var httpThreads = 0
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
    /// Days of events accepted; `nil` reads `cardinal.settings.retention_days` at start and every minute
    /// after, so ingest and partition retention agree.
    public var retentionDays: Int?
    /// How often stored events are folded into the report state; `nil` leaves folding to another daemon or to
    /// `cardinal state fold`.
    public var foldInterval: Duration? = .seconds(1)
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

    /// What every connection of the daemon (writers, spool replayer, key pool, report-state folder) connects
    /// with: `databaseURL` plus libpq keepalives, `tcp_user_timeout` and `connect_timeout`
    /// (`ConnectionString.deadPeerDetection`), unless `databaseURL` sets them, so that a silent network to the
    /// database is noticed in seconds, not after the kernel's two hours.
    var connectionString: String {
        ConnectionString.adding(ConnectionString.deadPeerDetection, to: databaseURL)
    }

    /// Defaults for everything but the database.
    public init(databaseURL: String) {
        self.databaseURL = databaseURL
    }
}
