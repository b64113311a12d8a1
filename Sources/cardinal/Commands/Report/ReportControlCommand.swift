import ArgumentKit
import CardinalReports
import CardinalStore

/// `cardinal report control`.
struct ReportControlCommand: ConversionReportCommand {
    static let name = "control"
    static let abstract = "Each variant against control: matured users, conversion rates, intervals, tests, SRM."
    static let discussion: String? = """
        A user is exposed at the first impression (control arm: first control impression; push: the \
        send), converts with the conversion event within the window after it, and counts once the \
        window has elapsed by --as-of. Users exposed to several arms are left out. --fail-on trips \
        on sample ratio mismatches, which are critical, and on variants significantly worse than \
        control (variant_worse_than_control), which are warnings. Each of a campaign's conversion events \
        (campaigns set --conversions) is compared; Holm adjusts the primary over the variants and \
        the others over every variant and further event together. --canvas reports a canvas \
        instead (its variants and control over all its steps); its settings are those set with \
        'campaigns set --campaign <canvas id>', its report days the app's. Beside the fixed-horizon \
        numbers each variant gets always-valid ones (a 95% confidence sequence and its p-value) and \
        the minimum detectable effect at today's sample. A campaign's significance rule is its \
        setting (campaigns set --significance), else sequential; --significance overrides it for \
        every campaign, and the output names the rule and where it came from. With --cuped, CUPED \
        adjusts the difference by each user's conversions of the same event in the campaign's CUPED \
        window before exposure (campaigns set --cuped-window, default 14d), when those differ between \
        users; it reads every exposed user's conversions, so it is asked for, not run every night.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = ReportOptions.app
    let campaign = ReportOptions.campaign
    let canvas = Option("canvas", help: "Report this canvas instead of campaigns (not with --campaign).",
                        valueName: "id")
    let from = ReportOptions.from
    let to = ReportOptions.to
    let asOf = ReportOptions.asOf
    let conversion = ReportOptions.conversion
    let window = ReportOptions.window
    let format = CommonOptions.format
    let failOn = ReportOptions.failOn
    let includeTest = ReportOptions.includeTest
    let significance = Option(
        "significance", help: "Which p-value (Holm-adjusted, < 0.05) makes a variant significant in every "
            + "campaign: sequential (always-valid, right however often the report is read) or fixed "
            + "(fixed-horizon, one look). Default: each campaign's setting, else sequential.",
        valueName: "rule", parser: .oneOf(SignificanceRule.self)
    )
    let cuped = Flag(
        "cuped", help: "Also adjust each variant's difference by its users' conversions before exposure (CUPED)."
    )
    let targetLift = Option(
        "target-lift", help: "Estimate the days still needed to detect this relative lift, e.g. 0.1 or 10%.",
        valueName: "lift", parser: .relativeLift
    )

    static func run(_ parsed: ParsedCommand<Self>) throws {
        var scope = try parsed.scope()
        if let canvas = parsed.canvas {
            guard scope.campaign == nil else {
                throw parsed.usageError("--campaign and --canvas exclude each other: a control report covers "
                                        + "campaigns or one canvas")
            }
            scope.canvas = canvas
        }
        let session = try parsed.session(for: scope)
        let report = try ControlReport.run(
            session: session, scope: scope, asOf: ReportOptions.asOf(parsed.asOf),
            conversion: parsed.conversion, window: parsed.window, significance: parsed.significance,
            targetLift: parsed.targetLift, cuped: parsed.cuped
        )
        for campaign in report.campaigns where campaign.conversionEvent == nil {
            let source = campaign.isCanvas ? "canvas" : "campaign"
            Console.warn("""
                control: \(source) \(campaign.campaignID) of \(campaign.app) has no conversion event; set one with \
                'cardinal campaigns set --campaign \(campaign.campaignID) --conversion NAME' or pass --conversion
                """)
        }
        // The page draws each campaign's lift day by day, one control_arm_days read per campaign; the other
        // formats have no use for it.
        let lifts = parsed.format == .html ? try CumulativeLift.ofCampaigns(in: report, session: session) : nil
        Console.print(report.render(parsed.format, lifts: lifts))
        if let threshold = parsed.failOn, threshold.isTripped(by: report.findings) {
            throw CommandExit(code: ExitCode.findings)
        }
    }
}
