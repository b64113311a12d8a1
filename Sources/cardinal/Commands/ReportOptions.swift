import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// The options of `cardinal report …` and how they become a report's scope.
enum ReportOptions {
    /// Days before `--to` that `--from` defaults to: 31 report days in all.
    static let defaultRangeDays = 30

    static let app = OptionSpec("app", help: "The app's name (default: every app).")
    static let campaign = OptionSpec("campaign", help: "The campaign id (default: every campaign).", valueName: "id")
    static let from = OptionSpec(
        "from", help: "First report day, YYYY-MM-DD, included (default: 30 days before --to).", valueName: "date"
    )
    static let to = OptionSpec("to", help: "Last report day, YYYY-MM-DD, included (default: today, UTC).", valueName: "date")
    static let asOf = OptionSpec(
        "as-of", help: "Count only users whose conversion window ended by then, RFC 3339 (default: now).",
        valueName: "time"
    )
    static let by = OptionSpec(
        "by", help: "Add a column and a row per value: day, platform, sdk_version or app_version.",
        valueName: "dimension", allowedValues: ReportBreakdown.allCases.map(\.rawValue)
    )
    static let conversion = OptionSpec(
        "conversion", help: "Conversion event for every campaign instead of its setting.", valueName: "name"
    )
    static let window = OptionSpec(
        "window", help: "Conversion window for every campaign instead of its setting, e.g. 3d, 36h (1s to 30d).",
        valueName: "duration"
    )
    static let failOn = OptionSpec(
        "fail-on", help: "Exit with status 3 when there are findings: anomalies (any), warning or critical (at least).",
        valueName: "level", allowedValues: FailThreshold.allCases.map(\.rawValue)
    )
    static let includeTest = FlagSpec("include-test", help: "Count events flagged test as well.")

    /// The app, campaign, report days and test flag of `report unique-impressions|anomalies|control`; an
    /// unknown app is an error rather than an empty report.
    static func scope(_ arguments: ParsedArguments) throws -> ReportScope {
        let to = try date(option: "to", arguments) ?? ReportDate(utcDayOf: Date())
        let from = try date(option: "from", arguments) ?? to.adding(days: -defaultRangeDays)
        guard from <= to else {
            throw arguments.usageError("--from \(from) is after --to \(to); both days are included")
        }
        return ReportScope(
            app: arguments.option("app"), campaign: arguments.option("campaign"), from: from, to: to,
            includeTest: arguments.flag("include-test")
        )
    }

    /// The scope of `report run`: every campaign of the app (or of every app) from `--since` to today.
    static func runScope(_ arguments: ParsedArguments) throws -> ReportScope {
        let to = ReportDate(utcDayOf: Date())
        let from = try date(option: "since", arguments) ?? to.adding(days: -defaultRangeDays)
        guard from <= to else {
            throw arguments.usageError("--since \(from) is after today, \(to)")
        }
        return ReportScope(app: arguments.option("app"), from: from, to: to, includeTest: arguments.flag("include-test"))
    }

    /// `--as-of`, or now truncated to the second so that the printed cut-off is the one used.
    static func asOf(_ arguments: ParsedArguments) throws -> Date {
        guard let text = arguments.option("as-of") else {
            return Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) {
            return date
        }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else {
            throw arguments.usageError("--as-of \(text) is not an RFC 3339 time such as 2026-11-30T12:00:00Z")
        }
        return date
    }

    /// `--window`, checked.
    static func window(_ arguments: ParsedArguments) throws -> ConversionWindow? {
        guard let text = arguments.option("window") else {
            return nil
        }
        do {
            return try ConversionWindow(parsing: text)
        } catch {
            throw arguments.usageError("--window: \(error)")
        }
    }

    /// `--fail-on`, if given.
    static func failThreshold(_ arguments: ParsedArguments) -> FailThreshold? {
        arguments.option("fail-on").flatMap(FailThreshold.init(rawValue:))
    }

    private static func date(option: String, _ arguments: ParsedArguments) throws -> ReportDate? {
        guard let text = arguments.option(option) else {
            return nil
        }
        guard let date = ReportDate(text) else {
            throw arguments.usageError("--\(option) \(text) is not a date as YYYY-MM-DD")
        }
        return date
    }
}
