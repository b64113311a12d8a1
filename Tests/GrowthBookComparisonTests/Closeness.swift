import CardinalReports
import Testing

/// Expects `actual` to be defined and within `tolerance` of gbstats' `expected`.
func expectClose(
    _ actual: Double?, _ expected: Double?, tolerance: Double, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let actual, let expected else {
        Issue.record("\(what): Cardinal \(String(describing: actual)), gbstats \(String(describing: expected))",
                     sourceLocation: sourceLocation)
        return
    }
    #expect(abs(actual - expected) <= tolerance,
            "\(what): Cardinal \(actual), gbstats \(expected), off by \(abs(actual - expected)) > \(tolerance)",
            sourceLocation: sourceLocation)
}

/// Expects both bounds of `actual` within `tolerance` of gbstats' interval.
func expectClose(
    _ actual: Interval?, _ expected: [Double], tolerance: Double, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectClose(actual?.lower, expected.first, tolerance: tolerance, "\(what) lower", sourceLocation: sourceLocation)
    expectClose(actual?.upper, expected.last, tolerance: tolerance, "\(what) upper", sourceLocation: sourceLocation)
}
