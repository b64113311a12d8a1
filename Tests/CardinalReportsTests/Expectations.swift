import CardinalReports
import Testing

/// The absolute tolerance of the report's contract with its reference values (DESIGN.md).
let referenceTolerance = 1e-6

/// Expects `actual` to be defined and within `tolerance` of `expected`.
func expectClose(
    _ actual: Double?, _ expected: Double, tolerance: Double = referenceTolerance, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let actual else {
        Issue.record("\(what): expected \(expected), got nil", sourceLocation: sourceLocation)
        return
    }
    #expect(abs(actual - expected) <= tolerance, "\(what): expected \(expected), got \(actual)",
            sourceLocation: sourceLocation)
}

/// Expects `actual` to be within `relative` of `expected` in relative terms (for values spanning many decades).
func expectRelativelyClose(
    _ actual: Double, _ expected: Double, relative: Double, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let error = expected == 0 ? abs(actual) : abs(actual - expected) / abs(expected)
    #expect(error <= relative, "\(what): expected \(expected), got \(actual) (relative error \(error))",
            sourceLocation: sourceLocation)
}

/// Expects `actual` to be defined and its bounds within `tolerance` of the reference pair [lower, upper].
func expectClose(
    _ actual: Interval?, _ expected: [Double], tolerance: Double = referenceTolerance, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard expected.count == 2 else {
        Issue.record("\(what): a reference interval needs 2 bounds, got \(expected)", sourceLocation: sourceLocation)
        return
    }
    expectClose(actual?.lower, expected[0], tolerance: tolerance, "\(what) lower", sourceLocation: sourceLocation)
    expectClose(actual?.upper, expected[1], tolerance: tolerance, "\(what) upper", sourceLocation: sourceLocation)
}
