public import CardinalStore
public import Foundation

/// The anomalies report: the integration-health findings of `cardinal.anomalies` and the findings of the
/// control report (sample ratio mismatches, variants worse than control), most severe first.
public struct AnomaliesReport: Sendable, Equatable {
    /// What the report covers.
    public var scope: ReportScope
    /// The findings, most severe first, then by kind, app, campaign or canvas step, and group.
    public var findings: [AnomalyFinding]

    /// Creates a report; `findings` are put in report order.
    public init(scope: ReportScope, findings: [AnomalyFinding]) {
        self.scope = scope
        self.findings = findings.sorted(by: Self.reportOrder)
    }

    /// Computes the report.
    /// - Parameters:
    ///   - asOf: The maturity cut-off of the control report whose arm sizes the sample ratio check tests and
    ///     whose variants are compared with control.
    ///   - conversion: The conversion event for the control report, instead of each campaign's setting.
    ///   - window: The conversion window for the control report, instead of each campaign's setting.
    public static func run(
        session: ReportSession, scope: ReportScope, asOf: Date, conversion: String? = nil,
        window: ConversionWindow? = nil
    ) throws -> AnomaliesReport {
        let control = try ControlReport.run(
            session: session, scope: scope, asOf: asOf, conversion: conversion, window: window
        )
        return try run(session: session, scope: scope, control: control)
    }

    /// Computes the report as ``run(session:scope:asOf:conversion:window:)`` does, in parts run at the same time
    /// on sessions of their own: the findings' two halves (``AnomaliesHalf``) and the control report of the
    /// sample ratio check and the worse variants. The parts read different state, so on several backends the report takes about as
    /// long as the slowest. They read one snapshot, which `session` exports: the two halves judge a campaign's
    /// control exposure in opposite ways (`control_impressions_missing` for a group or for the whole campaign),
    /// and on two snapshots a control impression or a split setting committed between them could make both
    /// findings or neither.
    ///
    /// `session` runs the logging half, the most SQL to plan, as soon as it has exported the snapshot. For the
    /// whole app the exposure half and the control report each start on a thread and a session of their own; for
    /// one campaign or canvas they share one, one after the other: there each part's cost is mostly fixed (a new
    /// backend's catalog reads, parsing and planning), and a third backend costs more CPU than it saves.
    ///
    /// On 2 cores at 10 M events, against the findings in one call beside the control report: all campaigns
    /// 531–581 → 506–561 ms, one campaign 66–72 → 59–62 ms (README, Performance: "The anomalies in parts").
    /// - Parameters:
    ///   - session: The calling thread's session, not inside a transaction.
    ///   - openSession: Opens a new session; called once or twice, on threads of their own.
    public static func runSideBySide(
        session: ReportSession, openSession: @escaping @Sendable () throws -> ReportSession,
        scope: ReportScope, asOf: Date, conversion: String? = nil, window: ConversionWindow? = nil
    ) throws -> AnomaliesReport {
        @Sendable func exposureHalf(_ session: ReportSession) throws -> [AnomalyFinding] {
            try session.anomalies(scope, half: .exposure)
        }
        @Sendable func controlFindings(_ session: ReportSession) throws -> [AnomalyFinding] {
            try ControlReport.run(session: session, scope: scope, asOf: asOf, conversion: conversion, window: window)
                .findings
        }
        return try session.sharingSnapshot { snapshot in
            let oneSource = scope.campaign != nil || scope.canvas != nil
            let backgroundParts = oneSource
                ? [BackgroundComputation {
                    try openSession().reading(snapshot) { try exposureHalf($0) + controlFindings($0) }
                  }]
                : [BackgroundComputation { try openSession().reading(snapshot, exposureHalf) },
                   BackgroundComputation { try openSession().reading(snapshot, controlFindings) }]
            // Every part ends before the report does, whichever fails, and the calling thread's error comes first:
            // when its half fails, PostgreSQL drops the snapshot, and a part that had not read it yet fails too.
            let loggingFindings = Result { try session.anomalies(scope, half: .logging) }
            let backgroundFindings = backgroundParts.map { part in Result { try part.value() } }
            return AnomaliesReport(
                scope: scope, findings: try loggingFindings.get() + backgroundFindings.flatMap { try $0.get() }
            )
        }
    }

    /// Computes the report with the findings of a control report already computed for `scope`.
    public static func run(
        session: ReportSession, scope: ReportScope, control: ControlReport
    ) throws -> AnomaliesReport {
        let findings = try session.anomalies(scope)
        return AnomaliesReport(scope: scope, findings: findings + control.findings)
    }

    /// Most severe first, then by kind, app, campaign, canvas, step, channel, platform, SDK and app version, each
    /// missing value after the others (as the SQL's NULLS LAST puts them: campaigns before canvas steps).
    private static func reportOrder(_ lhs: AnomalyFinding, _ rhs: AnomalyFinding) -> Bool {
        if lhs.severity != rhs.severity {
            return lhs.severity > rhs.severity
        }
        for (left, right) in zip(sortKey(lhs), sortKey(rhs)) where left != right {
            guard let left else { return false }
            guard let right else { return true }
            return left < right
        }
        return false
    }

    private static func sortKey(_ finding: AnomalyFinding) -> [String?] {
        [finding.kind.rawValue, finding.app, finding.campaignID, finding.canvasID, finding.canvasStepID,
         finding.channel, finding.platform, finding.sdkVersion, finding.appVersion]
    }
}
