import CardinalReports
import Foundation
import Testing

/// The reference values in `Fixtures/stats-reference.json`, computed with scipy 1.17.1, statsmodels and gbstats
/// 0.8.0. The file is a copy of the project's shared reference so that the repository is self-contained.
///
/// Only the fields the report computes are decoded; the gbstats fields (`gbstats_relative_lift_ci95`,
/// `gbstats_relative_p`) are GrowthBook's delta-method interval and p-value for the relative lift, a method
/// the report does not use, so they are ignored.
struct ReferenceFixture: Decodable {
    struct Arm: Decodable {
        let name: String
        let users: Int
        let conversions: Int
        let weight: Double

        var counts: ArmCounts { ArmCounts(users: users, converters: conversions) }
    }

    struct Variant: Decodable {
        let name: String
        let rate: Double
        let controlRate: Double
        let difference: Double
        let relativeLift: Double
        let z: Double
        let pValuePooledZ: Double
        let confidenceBraze: Double
        let differenceCi95Newcombe: [Double]
        let relativeLiftCi95Katz: [Double]
        let chanceToBeatControlBeta: Double
        let pValueHolm: Double
    }

    struct SampleRatio: Decodable {
        let chi2: Double
        let pValue: Double
        let df: Int
    }

    struct Case: Decodable {
        let arms: [Arm]
        let variants: [Variant]
        let srm: SampleRatio

        /// The arm named "control".
        func control() throws -> Arm {
            try #require(arms.first { $0.name == "control" }, "a reference case has no control arm")
        }

        /// The arm a reference variant was computed from.
        func arm(of variant: Variant) throws -> Arm {
            try #require(arms.first { $0.name == variant.name }, "no arm named \(variant.name)")
        }
    }

    let cases: [Case]

    /// Reads the fixture next to this source file (no SwiftPM resources: the path comes from `#filePath`).
    static func load() throws -> ReferenceFixture {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures/stats-reference.json")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ReferenceFixture.self, from: Data(contentsOf: url))
    }
}

