extension ControlStatistics {
    /// Adjusts p-values for multiple comparisons by Holm's step-down method.
    ///
    /// S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of Statistics 6
    /// (1979) 65–70. With the m defined p-values sorted as p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of p₍ⱼ₎ is
    /// max_{k ≤ j} min(1, (m − k + 1)·p₍ₖ₎), as statsmodels' `multipletests(method: "holm")` computes it. It
    /// controls the family-wise error rate like Bonferroni without assuming independence, yet rejects more; the
    /// running maximum keeps the adjusted values in the same order as the raw ones.
    ///
    /// `nil` entries (tests that were not defined) are not counted in m and stay `nil`, so an undefined
    /// comparison neither inflates nor hides the others. Equal p-values get equal adjusted values.
    ///
    /// - Parameter pValues: Raw p-values in [0, 1], or `nil`; a value outside [0, 1] is a programmer error.
    /// - Returns: The adjusted p-values, in the order of `pValues`.
    public static func holm(_ pValues: [Double?]) -> [Double?] {
        let defined = pValues.enumerated().compactMap { index, pValue in
            pValue.map { (index: index, pValue: $0) }
        }
        precondition(defined.allSatisfy { (0...1).contains($0.pValue) }, "Holm needs p-values in [0, 1]: \(pValues)")
        let ascending = defined.sorted { ($0.pValue, $0.index) < ($1.pValue, $1.index) }
        var adjusted = [Double?](repeating: nil, count: pValues.count)
        var runningMaximum = 0.0
        for (rank, entry) in ascending.enumerated() {
            let multiplier = Double(ascending.count - rank)
            runningMaximum = max(runningMaximum, min(1, multiplier * entry.pValue))
            adjusted[entry.index] = runningMaximum
        }
        return adjusted
    }
}
