import CardinalStore
import Foundation

/// Sentences shared by the human-readable renderings.
enum ReportText {
    /// `App shop, all campaigns, 2026-11-01 to 2026-11-30 (report days), test events excluded.`
    static func scopeLine(_ scope: ReportScope) -> String {
        let app = scope.app.map { "App \($0)" } ?? "All apps"
        let campaign = scope.canvas.map { "canvas \($0)" }
            ?? scope.campaign.map { "campaign \($0)" } ?? "all campaigns"
        let tests = scope.includeTest ? "test events included" : "test events excluded"
        return "\(app), \(campaign), \(scope.from) to \(scope.to) (report days, both included), \(tests)."
    }

    /// `app shop, campaign spring, 2026-11-01 to 2026-11-30`: what an empty report covered, in a few words
    /// (`every app`, `every campaign` when not narrowed; test events mentioned only when included).
    static func scopeSummary(_ scope: ReportScope) -> String {
        let app = scope.app.map { "app \($0)" } ?? "every app"
        let campaign = scope.canvas.map { "canvas \($0)" }
            ?? scope.campaign.map { "campaign \($0)" } ?? "every campaign"
        let tests = scope.includeTest ? ", test events included" : ""
        return "\(app), \(campaign), \(scope.from) to \(scope.to)\(tests)"
    }

    /// `No rows for app shop, every campaign, 2026-11-01 to 2026-11-30.`: what a table or page says instead of
    /// a bare header when a report has nothing to show.
    static func nothing(_ what: String, for scope: ReportScope) -> String {
        "No \(what) for \(scopeSummary(scope))."
    }

    /// `No findings.`, `1 finding.`, `3 findings.`
    static func count(_ count: Int, _ noun: String) -> String {
        switch count {
        case 0: "No \(noun)s."
        case 1: "1 \(noun)."
        default: "\(count) \(noun)s."
        }
    }
}

extension ReportText {
    /// An instant as RFC 3339 in UTC, `2026-11-30T12:00:00Z` (whole seconds: the CLI's `--as-of` has no
    /// fractions, and its default, now, is truncated to the second).
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
