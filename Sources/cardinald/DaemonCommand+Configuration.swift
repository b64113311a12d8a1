import ArgumentKit
import CardinalIngest

extension DaemonCommand {
    /// The configuration the options give, after the checks that involve more than one option.
    /// - Throws: ``UsageError`` for a combination that cannot work.
    static func configuration(_ parsed: ParsedCommand<Self>) throws(UsageError) -> IngestConfiguration {
        var configuration = IngestConfiguration(databaseURL: parsed.databaseURL)
        configuration.host = parsed.listen.host
        configuration.port = parsed.listen.port
        configuration.writers = parsed.writers
        configuration.maxBatchEvents = parsed.maxBatchEvents
        configuration.batchDelay = parsed.batchDelay
        configuration.maxQueuedEvents = parsed.maxQueuedEvents
        configuration.requestTimeout = parsed.requestTimeout
        configuration.maxBodyBytes = parsed.maxBodyBytes
        configuration.maxInflatedBytes = parsed.maxInflatedBytes
        configuration.connectionLimit = parsed.maxConnections
        configuration.maxBodyMemoryBytes = parsed.maxBodyMemory
        guard configuration.maxBodyMemoryBytes >= max(configuration.maxBodyBytes, configuration.maxInflatedBytes) else {
            throw parsed.usageError(
                "--max-body-memory (\(configuration.maxBodyMemoryBytes)) must be at least --max-body-bytes and "
                    + "--max-inflated-bytes, or the largest request could never be read")
        }
        configuration.maxEventsPerRequest = parsed.maxEventsPerRequest
        guard configuration.maxEventsPerRequest <= configuration.maxBatchEvents else {
            throw parsed.usageError(
                "--max-events-per-request (\(configuration.maxEventsPerRequest)) must not exceed --max-batch-events "
                    + "(\(configuration.maxBatchEvents)): a request is written in one batch")
        }
        configuration.maxStoredRejectionsPerRequest = parsed.maxStoredRejectionsPerRequest
        configuration.maxStoredRejectionsPerAppHour = parsed.maxStoredRejectionsPerAppHour
        configuration.rateLimitEventsPerSecond = parsed.rateLimitEvents
        configuration.rateLimitRequestsPerSecond = parsed.rateLimitRequests
        configuration.perIPConnectionLimit = parsed.maxConnectionsPerIP
        configuration.requestDeadline = parsed.requestDeadline
        configuration.connectionTimeout = parsed.connectionTimeout
        configuration.httpThreads = parsed.httpThreads
        configuration.keyCacheTTL = parsed.keyCacheTTL
        configuration.retentionDays = parsed.retentionDays
        configuration.foldInterval = parsed.foldInterval > .zero ? parsed.foldInterval : nil
        guard !parsed.spoolDir.isEmpty else {
            throw parsed.usageError("--spool-dir must not be empty; use --spool-max-bytes 0 to turn the spool off")
        }
        configuration.spoolDirectory = parsed.spoolDir
        configuration.spoolMaxBytes = parsed.spoolMaxBytes
        configuration.spoolCommitTimeout = parsed.spoolCommitTimeout
        configuration.spoolSegmentBytes = parsed.spoolSegmentBytes
        configuration.spoolReplayChunkEvents = parsed.spoolReplayChunkEvents
        return configuration
    }
}
