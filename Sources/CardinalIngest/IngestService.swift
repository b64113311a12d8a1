import CardinalCore
public import CardinalLifecycle
public import CardinalLogging
import CardinalStore
import MicroHTTP
import PostgresClient

/// The ingest daemon wired together: the HTTP server and its router, the batch writers, the spool and its
/// replayer, the fold loop and the retention refresher. Its ``services`` run it; a ``ServiceGroup`` starts them
/// in order and stops them in reverse, so that each can rely on those before it until it has stopped.
public final class IngestService: Sendable {
    /// The services in the order they start: what validates and writes first, the HTTP server last, so that on
    /// shutdown the server drains its requests while the writers still write their batches.
    public let services: [any Service]
    private let pool: PostgresPool
    private let keyPool: PostgresPool
    private let logger: Logger

    /// How often the retention of `cardinal.settings` is re-read (unless fixed by `--retention-days`).
    static let settingsRefreshInterval: Duration = .seconds(60)

    /// How long the HTTP server waits for the requests in flight to be answered once it stops listening.
    static let drainTimeout: Duration = .seconds(30)

    /// Wires the daemon and binds its address; nothing is written until ``services`` run.
    /// - Throws: when the address cannot be bound, or the spool directory cannot be created or is locked.
    public init(configuration: IngestConfiguration, logger: Logger) throws {
        let metrics = IngestMetrics()
        let health = DatabaseHealth(metrics: metrics)
        // Settings and /readyz use this one; key lookups have a pool of their own, so neither waits for the other.
        let pool = PostgresPool(connectionString: configuration.connectionString(for: .settings), maxConnections: 1,
                                acquireTimeout: .seconds(2))
        let keyPool = PostgresPool(connectionString: configuration.connectionString(for: .keyLookup),
                                   maxConnections: max(1, configuration.keyLookupThreads), acquireTimeout: .seconds(2))
        let databaseSink = { (role: DatabaseConnectionRole) in
            DatabaseBatchSink(connectionString: configuration.connectionString(for: role),
                              reconnectInterval: .milliseconds(500),
                              health: health, metrics: metrics, logger: logger)
        }
        let spool = try Self.openSpool(configuration: configuration, metrics: metrics, logger: logger)
        let sinks: [any BatchSink & Sendable] = (0..<max(1, configuration.writers)).map { index in
            if let spool {
                SpoolingBatchSink(database: databaseSink(.writer), commitTimeout: configuration.spoolCommitTimeout
                                      ?? configuration.requestTimeout / 2,
                                  spool: spool, metrics: metrics, logger: logger, name: "cardinal-commit-\(index)")
            } else {
                databaseSink(.writer)
            }
        }
        let replayer = spool.map { spool in
            SpoolReplayer(spool: spool, sink: databaseSink(.spoolReplay),
                          chunkEvents: configuration.spoolReplayChunkEvents,
                          retryInterval: .seconds(1), metrics: metrics, logger: logger)
        }
        let batcher = Batcher(
            limits: .init(maxBatchEvents: configuration.maxBatchEvents, maxDelay: configuration.batchDelay,
                          maxQueuedEvents: configuration.maxQueuedEvents),
            sinks: sinks, metrics: metrics
        )
        let retention = Self.retentionSetting(configuration: configuration, pool: pool, logger: logger)
        let keys = IngestKeyCache(
            lookup: { token in try keyPool.withConnection { try IngestKeyStore(connection: $0).lookup(token: token) } },
            timeToLive: configuration.keyCacheTTL, unknownTimeToLive: configuration.unknownKeyCacheTTL,
            threads: configuration.keyLookupThreads)
        let rateLimiter = RateLimiter(eventsPerSecond: configuration.rateLimitEventsPerSecond,
                                      requestsPerSecond: configuration.rateLimitRequestsPerSecond)
        let memory = MemoryBudget(bytes: configuration.maxBodyMemoryBytes)
        let router = IngestRouter(
            events: EventsEndpoint(
                rateLimiter: rateLimiter,
                rejectionQuota: RejectionQuota(perAppPerHour: configuration.maxStoredRejectionsPerAppHour),
                memory: memory,
                maxEvents: configuration.maxEventsPerRequest,
                maxStoredRejections: configuration.maxStoredRejectionsPerRequest,
                retention: retention,
                batcher: batcher, metrics: metrics, logger: logger,
                maxInflatedBytes: configuration.maxInflatedBytes, requestTimeout: configuration.requestTimeout
            ),
            headCheck: RequestHeadCheck(maxBodyBytes: configuration.maxBodyBytes),
            keys: keys, rateLimiter: rateLimiter, memory: memory, readinessPool: pool, spool: spool, metrics: metrics, logger: logger
        )
        // Bound here, not in its service, so that an address in use fails the start before anything runs.
        let server: HTTPServer
        do {
            server = try HTTPServer(
                configuration: Self.serverConfiguration(configuration, logger: logger),
                headHandler: router.checkHead,
                admissionHandler: router.admit,
                handler: router.handle
            )
        } catch {
            router.stop()
            throw error
        }
        let folder = configuration.foldInterval.map { interval in
            ReportStateFolder(connectionString: configuration.connectionString(for: .reportStateFold),
                              interval: interval, metrics: metrics, logger: logger)
        }
        var services: [any Service] = []
        if retention.isRefreshed {
            services.append(ThreadedService(name: "retention-refresher",
                                            start: { retention.startRefreshing(every: Self.settingsRefreshInterval) },
                                            stop: retention.stopRefreshing))
        }
        services.append(ThreadedService(name: "batch-writers", start: batcher.start, stop: batcher.shutDown))
        if let replayer {
            services.append(ThreadedService(name: "spool-replayer", start: replayer.start, stop: replayer.stop))
        }
        if let folder {
            services.append(ThreadedService(name: "report-state-fold", start: folder.start, stop: folder.stop))
        }
        services.append(ThreadedService(name: "http-server", stop: {
            logger.log(.info, "shutting down: no new connections, finishing in-flight batches")
            // Draining starts before the listening socket closes: a client that finds it closed knows that its
            // kept-alive connections get 503 from now on.
            router.beginDraining()
            server.quiesce()
            router.waitUntilIdle(timeout: Self.drainTimeout)
            // Answers handed to the server are still being written; stopping now would cut them off.
            server.waitForOpenRequests(timeout: .seconds(5))
            server.stop()
            router.stop()
        }))
        self.services = services
        self.pool = pool
        self.keyPool = keyPool
        self.logger = logger
        logger.log(.info, "cardinald listening", [
            "http.address": "\(configuration.host):\(server.port)", "ingest.writers": String(batcher.writerCount),
        ])
    }

    /// The HTTP server's settings, from the daemon's.
    private static func serverConfiguration(_ configuration: IngestConfiguration, logger: Logger) -> HTTPServerConfiguration {
        var server = HTTPServerConfiguration()
        server.host = configuration.host
        server.port = configuration.port
        server.connectionLimit = configuration.connectionLimit
        server.perIPConnectionLimit = configuration.perIPConnectionLimit
        server.connectionTimeout = configuration.connectionTimeout
        server.requestDeadline = configuration.requestDeadline
        server.deadlineResponse = IngestResponse.error(
            503, code: "deadline_exceeded",
            message: "the request took longer than the daemon allows (--request-deadline); retry later "
                + "(events of it that were stored after all come back as duplicates)",
            retryAfterSeconds: 1)
        server.maxBodyBytes = configuration.maxBodyBytes
        // For a body without Content-Length that outgrows the limit; a declared one is refused by RequestHeadCheck.
        server.bodyTooLargeResponse = IngestResponse.error(
            413, code: "payload_too_large",
            message: "the body is larger than \(configuration.maxBodyBytes) bytes, the most this server accepts: send smaller batches")
        server.threadPoolSize = configuration.httpThreads
        server.logger = { message in logger.log(.warning, "http server", ["http.error": message]) }
        return server
    }

    /// The spool, or `nil` when `spoolMaxBytes` is 0.
    private static func openSpool(configuration: IngestConfiguration, metrics: IngestMetrics, logger: Logger) throws -> SpoolWriter? {
        guard configuration.spoolMaxBytes > 0 else {
            return nil
        }
        let spool = try SpoolWriter(
            storage: PosixSpoolStorage(directory: configuration.spoolDirectory), maxBytes: configuration.spoolMaxBytes,
            segmentBytes: configuration.spoolSegmentBytes, metrics: metrics, logger: logger
        )
        logger.log(.info, "spool ready", [
            "spool.dir": configuration.spoolDirectory, "spool.max_bytes": String(configuration.spoolMaxBytes),
        ])
        return spool
    }

    /// The retention the daemon validates against: configured, else the database's (re-read every
    /// `settingsRefreshInterval`), else the default until the database answers.
    private static func retentionSetting(configuration: IngestConfiguration, pool: PostgresPool, logger: Logger) -> RetentionSetting {
        if let days = configuration.retentionDays {
            return RetentionSetting(fixed: ValidationPolicy(retentionDays: days), logger: logger)
        }
        let setting = RetentionSetting(initial: ValidationPolicy(), logger: logger) {
            try pool.withConnection { try InstallationSettings.load(from: $0).retentionDays }
        }
        // Read once before the first request is validated; the retention-refresher service re-reads it.
        setting.refresh()
        return setting
    }

    /// Closes the database pools once the services have stopped, and writes the last summaries of repeated
    /// log lines.
    public func close() {
        pool.shutdown()
        keyPool.shutdown()
        logger.writePendingSummaries()
        logger.log(.info, "stopped")
    }
}
