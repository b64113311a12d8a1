import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// The options of `cardinal report …`, declared once for every report that takes them.
enum ReportOptions {
    /// Days before `--to` that `--from` defaults to: 31 report days in all.
    static let defaultRangeDays = 30

    static let app = Option("app", help: "The app's name (default: every app).")
    static let campaign = Option("campaign", help: "The campaign id (default: every campaign).", valueName: "id")
    static let canvas = Option(
        "canvas", help: "The canvas id: only its steps' findings (default: every campaign and canvas step); not with "
            + "--campaign.", valueName: "id"
    )
    static let from = Option(
        "from", help: "First report day, YYYY-MM-DD, included (default: 30 days before --to).", valueName: "date",
        parser: .reportDate
    )
    static let to = Option(
        "to", help: "Last report day, YYYY-MM-DD, included (default: today, UTC).", valueName: "date", parser: .reportDate
    )
    static let asOf = Option(
        "as-of", help: "Count only users whose conversion window ended by then, RFC 3339 (default: now).",
        valueName: "time", parser: .rfc3339
    )
    static let by = Option(
        "by", help: "Add a column and a row per value: day, platform, sdk_version, app_version, button_id (in-app "
            + "messages and push), placement_id (banners) or message_id (content cards).",
        valueName: "dimension", parser: .oneOf(ReportBreakdown.self)
    )
    static let conversion = Option(
        "conversion", help: "Conversion event for every campaign instead of its setting.", valueName: "name"
    )
    static let window = Option(
        "window", help: "Conversion window for every campaign instead of its setting, e.g. 3d, 36h (1s to 30d).",
        valueName: "duration", parser: .conversionWindow
    )
    static let failOn = Option(
        "fail-on", help: "Exit with status 3 when there are findings: anomalies (any), warning or critical (at least).",
        valueName: "level", parser: .oneOf(FailThreshold.self)
    )
    static let includeTest = Flag("include-test", help: "Count events flagged test as well.")

    /// `--as-of` if given, else now truncated to the second so that the printed cut-off is the one used.
    static func asOf(_ given: Date?) -> Date {
        given ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// An app that does not exist would give an empty report that looks like a quiet one.
    static func checkApp(_ scope: ReportScope, _ session: ReportSession) throws {
        if let app = scope.app {
            try session.requireApp(named: app)
        }
    }
}

extension ExitCode {
    /// `--fail-on` found findings at or above its level (the report was printed in full first).
    static let findings: Int32 = 3
}
