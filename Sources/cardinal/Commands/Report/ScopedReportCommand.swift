import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// A report over an app, a campaign and a range of report days: `report unique-impressions|anomalies|control`.
protocol ScopedReportCommand: DatabaseCommand {
    /// `--app`, declared with ``ReportOptions/app``.
    var app: Option<String> { get }
    /// `--campaign`, declared with ``ReportOptions/campaign``.
    var campaign: Option<String> { get }
    /// `--from`, declared with ``ReportOptions/from``.
    var from: Option<ReportDate> { get }
    /// `--to`, declared with ``ReportOptions/to``.
    var to: Option<ReportDate> { get }
    /// `--include-test`, declared with ``ReportOptions/includeTest``.
    var includeTest: Flag { get }
}

extension ParsedCommand where Command: ScopedReportCommand {
    /// The app, campaign, report days and test flag.
    ///
    /// - Throws: ``UsageError`` when `--from` is after `--to`.
    func scope() throws(UsageError) -> ReportScope {
        let to = self.to ?? ReportDate(utcDayOf: Date())
        let from = self.from ?? to.adding(days: -ReportOptions.defaultRangeDays)
        guard from <= to else {
            throw usageError("--from \(from) is after --to \(to); both days are included")
        }
        return ReportScope(app: self.app, campaign: self.campaign, from: from, to: to, includeTest: self.includeTest)
    }

    /// A report session for the scope; an unknown app is an error rather than an empty report.
    func session(for scope: ReportScope) throws -> ReportSession {
        let session = try connectForReports()
        try ReportOptions.checkApp(scope, session)
        return session
    }
}
