import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation
import PostgresClient

/// `cardinal report run`: the scheduled job.
struct ReportRunCommand: DatabaseCommand, LoggingCommand {
    static let name = "run"
    static let abstract = "The scheduled job: compute every report for the recent days and store it as a new run."
    static let discussion: String? = """
        Results go to cardinal.report_runs and the report tables; read them with the views \
        cardinal.latest_unique_impressions, latest_anomalies and latest_control (with --cuped, its cuped_ \
        columns too). Prints the run id. \
        For cron: 15 3 * * * cardinal report run --fail-on critical (exit 3 mails the findings). On a \
        terminal, standard error shows the step under way; otherwise it gets log lines of the start, \
        each step and the outcome, in cardinald's format.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = ReportOptions.app
    let since = Option("since", help: "First report day, YYYY-MM-DD (default: 30 days before today, UTC).",
                       valueName: "date", parser: .reportDate)
    let asOf = ReportOptions.asOf
    let failOn = ReportOptions.failOn
    let html = Option("html", help: "Also write the run's pages to this directory: index.html and one "
                          + "self-contained page per campaign, with charts.", valueName: "dir")
    let includeTest = ReportOptions.includeTest
    let cuped = Flag(
        "cuped", help: "Also store each variant's CUPED adjustment (as report control --cuped); it reads every "
            + "matured user's conversions before exposure."
    )
    let storeURL = Option("store-url", help: "Store the run in this database (the primary) while the reports read "
                              + "--database-url (a hot standby). Default: --database-url.", valueName: "url")
    let logLevel = CommonOptions.logLevel
    let logFormat = CommonOptions.logFormat

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let scope = try scope(parsed)
        let log = parsed.commandLog()
        var tripped = false
        try log.run {
            log.started(["report.app": scope.app ?? "*", "report.from": "\(scope.from)", "report.to": "\(scope.to)"])
            let session = try parsed.connectForReports()
            try ReportOptions.checkApp(scope, session)
            let store = try parsed.storeURL.map {
                ReportRunStore(connection: try PostgresConnection(connectionString: $0))
            }
            let run = try ScheduledReportRun.perform(
                session: session, scope: scope, asOf: ReportOptions.asOf(parsed.asOf), store: store,
                cuped: parsed.cuped
            ) {
                log.step("report run: \($0), \($0.position)")
            }
            let findings = run.anomalies.findings
            let critical = findings.filter { $0.severity == .critical }.count
            log.summary("finished", """
                report run \(run.runID): \(scope.from) to \(scope.to), \(run.uniqueImpressions.rows.count) \
                unique-impressions rows, \(run.control.campaigns.count) control campaigns, \(findings.count) findings \
                (\(critical) critical)
                """, ["report.run_id": String(run.runID), "report.findings": String(findings.count),
                      "report.critical_findings": String(critical)])
            if let directory = parsed.html {
                try writePages(run: run, session: session, to: directory, log: log)
                log.summary("pages written", "report run \(run.runID): pages written to \(directory)/index.html",
                            ["report.run_id": String(run.runID)])
            }
            Console.print("\(run.runID)\n")
            tripped = parsed.failOn?.isTripped(by: findings) ?? false
        }
        if tripped {
            throw CommandExit(code: ExitCode.findings)
        }
    }

    /// Every campaign of the app (or of every app) from `--since` to today.
    private static func scope(_ parsed: ParsedCommand<Self>) throws(UsageError) -> ReportScope {
        let to = ReportDate(utcDayOf: Date())
        let from = parsed.since ?? to.adding(days: -ReportOptions.defaultRangeDays)
        guard from <= to else {
            throw parsed.usageError("--since \(from) is after today, \(to)")
        }
        return ReportScope(app: parsed.app, from: from, to: to, includeTest: parsed.includeTest)
    }

    /// Writes the run's pages into `directory` (created if missing); the daily series come from the
    /// unique-impressions report by day and the experiments' lift from control_arm_days, because the stored
    /// run keeps totals only.
    private static func writePages(
        run: ScheduledReportRun, session: ReportSession, to directory: String, log: CommandLog
    ) throws {
        log.step("report run \(run.runID): reading the daily series for the pages")
        let daily = try UniqueImpressionsReport.run(session: session, scope: run.uniqueImpressions.scope, by: .day)
        log.step("report run \(run.runID): reading the experiments' lift day by day")
        let lifts = try CumulativeLift.ofCampaigns(in: run.control, session: session)
        log.step("report run \(run.runID): drawing the pages of \(run.control.campaigns.count.formatted()) campaigns")
        let pages = ReportRunPages(run: run, daily: daily.rows, lifts: lifts)
        let folder = URL(filePath: directory, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, file) in pages.files.enumerated() {
            log.progress("report run \(run.runID): writing page \((index + 1).formatted()) of \(pages.files.count.formatted())")
            try Data(file.html.utf8).write(to: folder.appending(path: file.name), options: .atomic)
        }
    }
}
