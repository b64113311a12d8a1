import ArgumentKit
import CardinalIngest
import Dispatch
import Foundation

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

// Signals arrive on a dispatch source rather than in a C handler, so shutdown can run ordinary Swift code.
let stop = DispatchSemaphore(value: 0)
var signalSources: [any DispatchSourceSignal] = []
for signalNumber in [SIGTERM, SIGINT] {
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler {
        logger.log(.info, "signal received", ["signal": signalNumber == SIGTERM ? "TERM" : "INT"])
        stop.signal()
    }
    source.resume()
    signalSources.append(source)
}
stop.wait()
service.shutDown()
exit(ExitCode.success)
