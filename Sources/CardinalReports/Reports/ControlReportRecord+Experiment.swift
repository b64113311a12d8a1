import CardinalStore

extension ControlReportRecord {
    /// Fills the always-valid numbers, the verdict of the campaign's significance rule and the minimum
    /// detectable effect of a variant row (`report_control`'s columns of migration 0090).
    mutating func storeExperimentColumns(
        _ statistics: VariantComparison, of arm: ControlArm, in campaign: ControlCampaign, report: ControlReport
    ) {
        let alwaysValid = statistics.alwaysValid
        alwaysValidDifferenceLower = alwaysValid.differenceInterval?.lower
        alwaysValidDifferenceUpper = alwaysValid.differenceInterval?.upper
        alwaysValidLiftLower = alwaysValid.relativeLiftInterval?.lower
        alwaysValidLiftUpper = alwaysValid.relativeLiftInterval?.upper
        alwaysValidPValue = alwaysValid.pValue
        alwaysValidPValueHolm = alwaysValid.pValueHolm
        significant = report.significance(of: campaign).rule.isSignificant(statistics)
        let figures = report.power(of: arm, against: campaign.controlArm, window: campaign.window)
        minimumDetectableDifference = figures?.minimumDetectableDifference
        minimumDetectableLift = figures?.minimumDetectableLift
    }

    /// Fills the CUPED columns (migration 0095): the campaign's window on every row of a campaign whose report
    /// computed CUPED, the adjusted numbers on a variant row CUPED adjusted.
    mutating func storeCUPEDColumns(_ cuped: CUPEDComparison?, window: CUPEDWindow?) {
        cupedWindow = window
        cupedTheta = cuped?.theta
        cupedDifference = cuped?.difference
        cupedDifferenceLower = cuped?.differenceCI95?.lower
        cupedDifferenceUpper = cuped?.differenceCI95?.upper
        cupedLift = cuped?.relativeLift
        cupedLiftLower = cuped?.relativeLiftCI95?.lower
        cupedLiftUpper = cuped?.relativeLiftCI95?.upper
        cupedPValue = cuped?.pValue
        cupedVarianceReduction = cuped?.varianceReduction
    }
}
