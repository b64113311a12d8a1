import CardinalReports
import Foundation
import TestSupport

/// GrowthBook's stats engine run on the arms the tests give it: gbstats_engine.py beside this file, under the
/// interpreter of `CARDINAL_GBSTATS_PYTHON`. One run answers every case, and its answer is kept for the
/// process: the suites cost two Python starts (about a second together), not one per test.
enum GrowthBookEngine {
    /// What gbstats says about one test of one case on one scale.
    struct Summary: Decodable {
        let estimate: Double
        let stddev: Double
        let ci: [Double]
        let pValue: Double?
    }

    /// gbstats' numbers for one case on one scale (absolute or relative).
    struct Scale: Decodable {
        /// The fixed-horizon two-sided Welch t-test.
        let fixed: Summary
        /// Welch–Satterthwaite degrees of freedom of ``fixed``.
        let fixedDof: Double
        /// The sequential two-sided test (asymptotic confidence sequence).
        let sequential: Summary
        /// The Bayesian chance to win (proportion cases).
        let chanceToWin: Double?
        /// CUPED's θ (CUPED cases).
        let theta: Double?
    }

    /// gbstats' numbers for one case.
    struct Result: Decodable {
        let absolute: Scale
        let relative: Scale
    }

    private struct Response: Decodable {
        let results: [Result]
    }

    /// gbstats did not answer as it should.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Each case of ``ComparisonCases/proportions`` with Cardinal's comparison (Holm over the one variant) and
    /// gbstats' result.
    static func proportions() throws -> [(arms: String, cardinal: VariantComparison, gbstats: Result)] {
        zip(ComparisonCases.proportions, try proportionResults.get()).map { arms, gbstats in
            ("\(arms.variant) against \(arms.control)",
             ControlStatistics.compareAll(variants: [arms.variant], control: arms.control)[0], gbstats)
        }
    }

    /// Each case of ``ComparisonCases/cuped()`` with its arms, Cardinal's CUPED comparison and gbstats' result.
    static func cuped() throws
        -> [(arms: (variant: CovariateSums, control: CovariateSums), cardinal: CUPEDComparison?, gbstats: Result)]
    {
        zip(ComparisonCases.cuped(), try cupedResults.get()).map { arms, gbstats in
            (arms, CUPEDEstimator.compare(variant: arms.variant, control: arms.control), gbstats)
        }
    }

    // Globals and static lets are initialised once, lazily and thread-safely, however many tests ask at once.
    private static let proportionResults = Swift.Result { try analyse(proportions: ComparisonCases.proportions) }
    private static let cupedResults = Swift.Result { try analyse(cuped: ComparisonCases.cuped()) }

    private static func analyse(proportions cases: [(variant: ArmCounts, control: ArmCounts)]) throws -> [Result] {
        try run(cases.map { variant, control in
            ["kind": "proportion",
             "variant": ["users": variant.users, "converters": variant.converters],
             "control": ["users": control.users, "converters": control.converters]]
        })
    }

    private static func analyse(cuped cases: [(variant: CovariateSums, control: CovariateSums)]) throws -> [Result] {
        func arm(_ sums: CovariateSums) -> [String: Any] {
            ["users": sums.users, "sum_y": sums.sumY, "sum_y_squares": sums.sumYSquares, "sum_x": sums.sumX,
             "sum_x_squares": sums.sumXSquares, "sum_xy": sums.sumXY]
        }
        return try run(cases.map { ["kind": "cuped", "variant": arm($0.variant), "control": arm($0.control)] })
    }

    private static func run(_ cases: [[String: Any]]) throws -> [Result] {
        let python = try TestEnvironment.gbstatsPython()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("gbstats_engine.py")
        let request = FileManager.default.temporaryDirectory.appendingPathComponent("gbstats-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: ["cases": cases, "sequential_tuning_parameter": 5000])
            .write(to: request)
        defer { try? FileManager.default.removeItem(at: request) }
        let result = try ChildProcess.run(python, [script.path, request.path], timeout: .seconds(120))
        guard result.exitStatus == 0 else {
            throw Failure(description: "gbstats_engine.py failed: \(result.standardError)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let results = try decoder.decode(Response.self, from: Data(result.standardOutput.utf8)).results
        guard results.count == cases.count else {
            throw Failure(description: "gbstats answered \(results.count) of \(cases.count) cases")
        }
        return results
    }
}
