import ArgumentKit
import CardinalIngest
import Foundation

TerminationSignal.block()

let outcome = CommandLineParser.parse(
    Array(CommandLine.arguments.dropFirst()), root: DaemonCommand.spec, environment: ProcessInfo.processInfo.environment
)
let arguments: ParsedArguments
switch outcome {
case let .help(text):
    FileHandle.standardOutput.write(Data(text.utf8))
    exit(ExitCode.success)
case let .usageError(error):
    FileHandle.standardError.write(Data(error.description.utf8))
    exit(ExitCode.usage)
case let .run(parsed):
    arguments = parsed
}

let (configuration, level): (IngestConfiguration, Logger.Level)
do {
    (configuration, level) = try DaemonCommand.configuration(from: arguments)
} catch {
    FileHandle.standardError.write(Data(error.description.utf8))
    exit(ExitCode.usage)
}

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
