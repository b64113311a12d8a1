import ArgumentKit

/// `cardinal report …`: the three reports, printed, and the scheduled job that stores them.
enum ReportCommand {
    static let tree = CommandTree.group(
        "report",
        abstract: "Compute and print reports, or run the scheduled job that stores them for psql and dashboards.",
        discussion: """
            Every report calls the SQL function psql users call (cardinal.unique_impressions, cardinal.anomalies, \
            cardinal.control_arms); report days are calendar days in each campaign's report time zone. JSON \
            output is the stable contract for scripts.
            """,
        subcommands: [
            .command(ReportUniqueImpressionsCommand.self), .command(ReportAnomaliesCommand.self),
            .command(ReportControlCommand.self), .command(ReportRunCommand.self),
        ]
    )
}
