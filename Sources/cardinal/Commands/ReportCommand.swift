import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal report …`: the three reports, printed, and the scheduled job that stores them.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Compute and print reports, or run the scheduled job that stores them for psql and dashboards.",
        discussion: """
            Every report calls the SQL function psql users call (cardinal.unique_impressions, cardinal.anomalies, \
            cardinal.control_arms); report days are calendar days in each campaign's report time zone. JSON \
            output is the stable contract for scripts.
            """,
        subcommands: [
            CommandSpec(
                name: "unique-impressions",
                abstract: "Impressions, unique (daily) impressions, recipients, clicks, dismissals and their rates.",
                options: [CommonOptions.databaseURL, ReportOptions.app, ReportOptions.campaign, ReportOptions.from,
                          ReportOptions.to, ReportOptions.by, CommonOptions.format],
                flags: [ReportOptions.includeTest]
            ),
            CommandSpec(
                name: "anomalies",
                abstract: "Integration-health findings by campaign, channel, platform, SDK and app version.",
                discussion: """
                    Kinds: dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, \
                    control_impressions_missing, control_interaction, repeated_impressions, users_in_several_arms, \
                    sample_ratio_mismatch (from the control report, hence --as-of, --conversion and --window).
                    """,
                options: [CommonOptions.databaseURL, ReportOptions.app, ReportOptions.campaign, ReportOptions.from,
                          ReportOptions.to, ReportOptions.asOf, ReportOptions.conversion, ReportOptions.window,
                          CommonOptions.format, ReportOptions.failOn],
                flags: [ReportOptions.includeTest]
            ),
            CommandSpec(
                name: "control",
                abstract: "Each variant against control: matured users, conversion rates, intervals, tests, SRM.",
                discussion: """
                    A user is exposed at the first impression (control arm: first control impression; push: the \
                    send), converts with the conversion event within the window after it, and counts once the \
                    window has elapsed by --as-of. Users exposed to several arms are left out. --fail-on trips \
                    on sample ratio mismatches, which are critical.
                    """,
                options: [CommonOptions.databaseURL, ReportOptions.app, ReportOptions.campaign, ReportOptions.from,
                          ReportOptions.to, ReportOptions.asOf, ReportOptions.conversion, ReportOptions.window,
                          CommonOptions.format, ReportOptions.failOn],
                flags: [ReportOptions.includeTest]
            ),
            CommandSpec(
                name: "run",
                abstract: "The scheduled job: compute every report for the recent days and store it as a new run.",
                discussion: """
                    Results go to cardinal.report_runs and the report tables; read them with the views \
                    cardinal.latest_unique_impressions, latest_anomalies and latest_control. Prints the run id. \
                    For cron: 15 3 * * * cardinal report run --fail-on critical (exit 3 mails the findings).
                    """,
                options: [
                    CommonOptions.databaseURL, ReportOptions.app,
                    OptionSpec("since", help: "First report day, YYYY-MM-DD (default: 30 days before today, UTC).",
                               valueName: "date"),
                    ReportOptions.asOf, ReportOptions.failOn,
                    OptionSpec("html", help: "Also write the run's pages to this directory: index.html and one "
                               + "self-contained page per campaign, with charts.", valueName: "dir"),
                ],
                flags: [ReportOptions.includeTest]
            ),
        ]
    )

    static func uniqueImpressions(_ context: CommandContext) throws {
        let arguments = context.arguments
        let scope = try ReportOptions.scope(arguments)
        let session = try context.connectForReports()
        try checkApp(scope, session)
        let report = try UniqueImpressionsReport.run(
            session: session, scope: scope, by: arguments.option("by").flatMap(ReportBreakdown.init(rawValue:))
        )
        context.print(report.render(context.format))
    }

    static func anomalies(_ context: CommandContext) throws {
        let arguments = context.arguments
        let inputs = try ConversionReportInputs(context)
        let report = try AnomaliesReport.run(
            session: inputs.session, scope: inputs.scope, asOf: inputs.asOf,
            conversion: arguments.option("conversion"), window: inputs.window
        )
        context.print(report.render(context.format))
        if let threshold = ReportOptions.failThreshold(arguments), threshold.isTripped(by: report.findings) {
            throw CommandExit(code: ExitCode.findings)
        }
    }

    static func control(_ context: CommandContext) throws {
        let arguments = context.arguments
        let inputs = try ConversionReportInputs(context)
        let report = try ControlReport.run(
            session: inputs.session, scope: inputs.scope, asOf: inputs.asOf,
            conversion: arguments.option("conversion"), window: inputs.window
        )
        for campaign in report.campaigns where campaign.conversionEvent == nil {
            context.warn("""
                control: campaign \(campaign.campaignID) of \(campaign.app) has no conversion event; set one with \
                'cardinal campaigns set --conversion NAME' or pass --conversion
                """)
        }
        context.print(report.render(context.format))
        if let threshold = ReportOptions.failThreshold(arguments), threshold.isTripped(by: report.sampleRatioFindings) {
            throw CommandExit(code: ExitCode.findings)
        }
    }

    static func run(_ context: CommandContext) throws {
        let arguments = context.arguments
        let scope = try ReportOptions.runScope(arguments)
        let asOf = try ReportOptions.asOf(arguments)
        let session = try context.connectForReports()
        try checkApp(scope, session)
        let run = try ScheduledReportRun.perform(session: session, scope: scope, asOf: asOf)
        let findings = run.anomalies.findings
        let critical = findings.filter { $0.severity == .critical }.count
        context.warn("""
            report run \(run.runID): \(scope.from) to \(scope.to), \(run.uniqueImpressions.rows.count) \
            unique-impressions rows, \(run.control.campaigns.count) control campaigns, \(findings.count) findings \
            (\(critical) critical)
            """)
        if let directory = arguments.option("html") {
            try writePages(run: run, session: session, to: directory)
            context.warn("report run \(run.runID): pages written to \(directory)/index.html")
        }
        context.print("\(run.runID)\n")
        if let threshold = ReportOptions.failThreshold(arguments), threshold.isTripped(by: findings) {
            throw CommandExit(code: ExitCode.findings)
        }
    }

    /// Writes the run's pages into `directory` (created if missing); the daily series come from the
    /// unique-impressions report by day, because the stored run keeps totals only.
    private static func writePages(run: ScheduledReportRun, session: ReportSession, to directory: String) throws {
        let daily = try UniqueImpressionsReport.run(session: session, scope: run.uniqueImpressions.scope, by: .day)
        let pages = ReportRunPages(run: run, daily: daily.rows)
        let folder = URL(filePath: directory, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in pages.files {
            try Data(file.html.utf8).write(to: folder.appending(path: file.name), options: .atomic)
        }
    }

    /// What the reports built on the control arms (anomalies, control) read from the command line, and their
    /// session, with the app checked.
    private struct ConversionReportInputs {
        let scope: ReportScope
        let asOf: Date
        let window: ConversionWindow?
        let session: ReportSession

        init(_ context: CommandContext) throws {
            scope = try ReportOptions.scope(context.arguments)
            asOf = try ReportOptions.asOf(context.arguments)
            window = try ReportOptions.window(context.arguments)
            session = try context.connectForReports()
            try checkApp(scope, session)
        }
    }

    /// An app that does not exist would give an empty report that looks like a quiet one.
    private static func checkApp(_ scope: ReportScope, _ session: ReportSession) throws {
        if let app = scope.app {
            try session.requireApp(named: app)
        }
    }
}

extension ExitCode {
    /// `--fail-on` found findings at or above its level (the report was printed in full first).
    static let findings: Int32 = 3
}
