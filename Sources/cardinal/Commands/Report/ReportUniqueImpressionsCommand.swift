import ArgumentKit
import CardinalReports

/// `cardinal report unique-impressions`.
struct ReportUniqueImpressionsCommand: ScopedReportCommand {
    static let name = "unique-impressions"
    static let abstract = "Impressions, unique (daily) impressions, recipients, clicks, dismissals and their rates."

    let databaseURL = CommonOptions.databaseURL
    let app = ReportOptions.app
    let campaign = ReportOptions.campaign
    let from = ReportOptions.from
    let to = ReportOptions.to
    let by = ReportOptions.by
    let format = CommonOptions.format
    let includeTest = ReportOptions.includeTest

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let scope = try parsed.scope()
        let report = try UniqueImpressionsReport.run(session: try parsed.session(for: scope), scope: scope, by: parsed.by)
        Console.print(report.render(parsed.format))
    }
}
