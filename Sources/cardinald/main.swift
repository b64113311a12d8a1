import ArgumentKit
import CardinalIngest
import Foundation

TerminationSignal.block()

let arguments = CommandLineParser.parseProcessArgumentsOrExit(root: DaemonCommand.spec)

let (configuration, level): (IngestConfiguration, Logger.Level)
do {
    (configuration, level) = try DaemonCommand.configuration(from: arguments)
} catch {
    FileHandle.standardError.write(Data(error.description.utf8))
    exit(ExitCode.usage)
}

// Without a connect timeout libpq waits for the operating system's TCP timeout (minutes) when the database host
// is unreachable; with it, readiness checks and reconnects fail fast. A value the operator set wins.
setenv("PGCONNECT_TIMEOUT", "5", 0)

let logger = Logger(minimumLevel: level)
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
