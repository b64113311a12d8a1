public import CardinalStore

extension SignificanceRule {
    /// Whether `comparison` is significant under this rule; `nil` when the p-value it needs is undefined.
    public func isSignificant(_ comparison: VariantComparison) -> Bool? {
        let pValue = switch self {
        case .fixed: comparison.pValueHolm
        case .sequential: comparison.alwaysValid.pValueHolm
        }
        return pValue.map { $0 < Self.level }
    }
}
