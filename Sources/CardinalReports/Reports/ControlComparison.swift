/// A variant of a campaign compared with the campaign's control arm.
public struct ControlComparison: Sendable, Equatable {
    /// The variant; `nil` for the single arm of a campaign without variant ids.
    public var variantID: String?
    /// The statistics; undefined ones are `nil` (an arm without users, no control arm, …).
    public var statistics: VariantComparison
    /// The difference adjusted by CUPED on the users' pre-exposure conversions; `nil` when the covariate does not
    /// vary over the two arms' users (no user converted before exposure, or all alike), for a further conversion
    /// event, and when an arm has fewer than two users.
    public var cuped: CUPEDComparison?

    /// Creates a comparison.
    public init(variantID: String?, statistics: VariantComparison, cuped: CUPEDComparison? = nil) {
        self.variantID = variantID
        self.statistics = statistics
        self.cuped = cuped
    }
}
