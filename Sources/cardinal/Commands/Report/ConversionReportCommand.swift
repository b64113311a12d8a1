import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// A report built on the control arms, `report anomalies|control`: a scope, a cut-off, a conversion and a
/// threshold for the exit status.
protocol ConversionReportCommand: ScopedReportCommand {
    /// `--as-of`, declared with ``ReportOptions/asOf``.
    var asOf: Option<Date> { get }
    /// `--conversion`, declared with ``ReportOptions/conversion``.
    var conversion: Option<String> { get }
    /// `--window`, declared with ``ReportOptions/window``.
    var window: Option<ConversionWindow> { get }
    /// `--format`, declared with ``CommonOptions/format``.
    var format: RequiredOption<OutputFormat> { get }
    /// `--fail-on`, declared with ``ReportOptions/failOn``.
    var failOn: Option<FailThreshold> { get }
}
