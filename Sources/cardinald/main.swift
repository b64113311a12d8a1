import ArgumentKit
import CardinalIngest
import CardinalLogging
import Foundation
import CMalloc

TerminationSignal.block()

let arguments = CommandLineParser.parseProcessArgumentsOrExit(root: DaemonCommand.spec)

let (configuration, logger): (IngestConfiguration, Logger)
do {
    (configuration, logger) = try DaemonCommand.configuration(from: arguments)
} catch {
    FileHandle.standardError.write(Data(error.description.utf8))
    exit(ExitCode.usage)
}

// Without a connect timeout libpq waits for the operating system's TCP timeout (minutes) when the database host
// is unreachable; with it, readiness checks and reconnects fail fast. A value the operator set wins.
setenv("PGCONNECT_TIMEOUT", "5", 0)

// Request bodies of up to 16 MiB come and go. glibc serves blocks above M_MMAP_THRESHOLD with mmap and gives
// them back to the kernel when freed, but by default it raises that threshold to the size of each such block
// freed (up to 32 MiB), after which large bodies come from the heap arenas, one per thread, which keep the
// memory resident when it is freed. A fixed threshold turns that adjustment off (mallopt(3)).
_ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)

let service: IngestService
do {
    service = try IngestService(configuration: configuration, logger: logger)
} catch {
    logger.log(.error, "cannot start", ["error": String(describing: error)])
    exit(ExitCode.failure)
}

TerminationSignal.wait(logger: logger)
service.shutDown()
exit(ExitCode.success)
