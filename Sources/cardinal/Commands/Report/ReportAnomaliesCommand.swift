import ArgumentKit
import CardinalReports
import CardinalStore

/// `cardinal report anomalies`.
struct ReportAnomaliesCommand: ConversionReportCommand {
    static let name = "anomalies"
    static let abstract =
        "Integration-health findings by campaign or canvas step, channel, platform, SDK and app version."
    static let discussion: String? = """
        Kinds: dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, \
        control_impressions_missing, control_interaction, repeated_impressions, repeated_dismissals, \
        users_in_several_arms, push_opens_missing, logging_stopped, repeated_conversions (by app and SDK, \
        without --campaign or --canvas), sample_ratio_mismatch and variant_worse_than_control (from the \
        control report, hence --as-of, --conversion and --window; the second under each campaign's \
        significance rule). A canvas step's findings name the canvas and the step; a canvas's arms and \
        control group, and its sample ratio, are the whole canvas's.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = ReportOptions.app
    let campaign = ReportOptions.campaign
    let canvas = ReportOptions.canvas
    let from = ReportOptions.from
    let to = ReportOptions.to
    let asOf = ReportOptions.asOf
    let conversion = ReportOptions.conversion
    let window = ReportOptions.window
    let format = CommonOptions.format
    let failOn = ReportOptions.failOn
    let includeTest = ReportOptions.includeTest

    static func run(_ parsed: ParsedCommand<Self>) throws {
        var scope = try parsed.scope()
        if let canvas = parsed.canvas {
            guard scope.campaign == nil else {
                throw parsed.usageError(
                    "--campaign and --canvas select nothing together: a message comes from a campaign or a canvas step"
                )
            }
            scope.canvas = canvas
        }
        let url = try parsed.connectionString()
        let report = try AnomaliesReport.runSideBySide(
            session: try parsed.session(for: scope), openSession: { try ReportSession(connectionString: url) },
            scope: scope, asOf: ReportOptions.asOf(parsed.asOf), conversion: parsed.conversion, window: parsed.window
        )
        Console.print(report.render(parsed.format))
        if let threshold = parsed.failOn, threshold.isTripped(by: report.findings) {
            throw CommandExit(code: ExitCode.findings)
        }
    }
}
