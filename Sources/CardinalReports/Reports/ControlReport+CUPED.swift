import CardinalCore
import CardinalStore

extension ControlReport {
    /// `comparisons` with each variant's CUPED adjustment against the control arm, from the arms' sums
    /// (`cardinal.control_arm_covariates`). A variant is adjusted only when the covariate varies over its users
    /// and control's together: when nobody converted before exposure (Σx = 0 in both arms) or everybody the same
    /// number of times, θ is 0 and the "adjusted" numbers would repeat the unadjusted ones as if CUPED had run.
    static func adjusted(_ comparisons: [ControlComparison], by covariates: [ControlArmCovariateRow])
        -> [ControlComparison]
    {
        guard let control = covariates.first(where: \.control).map(sums) else {
            return comparisons
        }
        return comparisons.map { comparison in
            var adjusted = comparison
            if let variant = covariates.first(where: { !$0.control && $0.variantID == comparison.variantID }).map(sums),
               (variant + control).varianceX > 0 {
                adjusted.cuped = CUPEDEstimator.compare(variant: variant, control: control)
            }
            return adjusted
        }
    }

    /// An arm's sums; y is 0 or 1, so Σy² is Σy.
    private static func sums(_ row: ControlArmCovariateRow) -> CovariateSums {
        CovariateSums(users: row.users, sumY: Double(row.converters), sumYSquares: Double(row.converters),
                      sumX: Double(row.sumX), sumXSquares: Double(row.sumXSquares), sumXY: Double(row.sumXY))
    }

    /// The `cuped` member of a comparison: the adjusted difference and lift with their intervals, the p-value,
    /// θ and the variance reduction; `null` when the comparison was not adjusted.
    static func cupedJSON(_ cuped: CUPEDComparison?) -> JSONValue {
        guard let cuped else { return .null }
        return ReportJSON.object([
            ("difference", ReportJSON.number(cuped.difference)),
            ("difference_ci95", intervalJSON(cuped.differenceCI95)),
            ("relative_lift", ReportJSON.number(cuped.relativeLift)),
            ("relative_lift_ci95", intervalJSON(cuped.relativeLiftCI95)),
            ("p_value", ReportJSON.number(cuped.pValue)),
            ("theta", ReportJSON.number(cuped.theta)),
            ("variance_reduction", ReportJSON.number(cuped.varianceReduction)),
        ])
    }

    /// The table's CUPED columns, after the others.
    static func cupedHeader(_ style: CellStyle) -> [String] {
        ["cuped_difference"] + style.intervalHeader("cuped_difference_ci95") + ["cuped_lift"]
            + style.intervalHeader("cuped_lift_ci95") + ["cuped_p_value", "cuped_variance_reduction"]
    }

    /// The CUPED cells of an arm's row: empty for control and for a variant that was not adjusted.
    static func cupedCells(_ cuped: CUPEDComparison?, _ style: CellStyle) -> [String?] {
        [style.rate(cuped?.difference)] + style.interval(cuped?.differenceCI95) + [style.rate(cuped?.relativeLift)]
            + style.interval(cuped?.relativeLiftCI95)
            + [style.statistic(cuped?.pValue), style.rate(cuped?.varianceReduction)]
    }
}
