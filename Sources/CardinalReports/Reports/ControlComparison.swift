/// A variant of a campaign compared with the campaign's control arm.
public struct ControlComparison: Sendable, Equatable {
    /// The variant; `nil` for the single arm of a campaign without variant ids.
    public var variantID: String?
    /// The statistics; undefined ones are `nil` (an arm without users, no control arm, …).
    public var statistics: VariantComparison

    /// Creates a comparison.
    public init(variantID: String?, statistics: VariantComparison) {
        self.variantID = variantID
        self.statistics = statistics
    }
}
