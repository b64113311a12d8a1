import CardinalReports
import Testing

@Suite struct HolmTests {
    @Test("The smallest p-value is multiplied by the number of tests and the next by one fewer")
    func stepDownMultipliers() {
        let adjusted = ControlStatistics.holm([0.01, 0.04, 0.03])
        // Sorted: 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 raised to 0.06 by the running maximum.
        expectClose(adjusted[0], 0.03, tolerance: 1e-15, "first")
        expectClose(adjusted[1], 0.06, tolerance: 1e-15, "second")
        expectClose(adjusted[2], 0.06, tolerance: 1e-15, "third")
    }

    @Test("Adjusted p-values keep the order of the raw ones, never fall below them and never exceed 1")
    func monotoneAndCapped() throws {
        let raw: [Double] = [0.2, 0.001, 0.049, 0.5, 0.0125, 0.3, 0.0125, 0.9]
        let adjusted = try ControlStatistics.holm(raw).map { try #require($0) }
        for i in raw.indices {
            #expect(adjusted[i] >= raw[i], "adjusted p-value \(i) is below its raw value")
            #expect(adjusted[i] <= 1, "adjusted p-value \(i) exceeds 1")
            for j in raw.indices where raw[i] <= raw[j] {
                #expect(adjusted[i] <= adjusted[j], "p-values \(i) and \(j) changed order")
            }
        }
    }

    @Test("Large p-values are capped at 1")
    func cappedAtOne() {
        #expect(ControlStatistics.holm([0.6, 0.7, 0.8]) == [1, 1, 1])
    }

    @Test("Equal p-values get equal adjusted values")
    func tiesAreTreatedAlike() {
        let adjusted = ControlStatistics.holm([0.02, 0.01, 0.02])
        #expect(adjusted[0] == adjusted[2])
        expectClose(adjusted[0], 0.04, tolerance: 1e-15, "tied")
    }

    @Test("Undefined p-values stay undefined and do not count as tests")
    func undefinedPValuesAreSkipped() {
        let adjusted = ControlStatistics.holm([nil, 0.02, nil, 0.04])
        #expect(adjusted[0] == nil)
        #expect(adjusted[2] == nil)
        expectClose(adjusted[1], 0.04, tolerance: 1e-15, "smaller of two tests")
        expectClose(adjusted[3], 0.04, tolerance: 1e-15, "larger of two tests")
    }

    @Test("A single p-value is left as it is, and no p-values give no adjustments")
    func degenerateFamilies() {
        #expect(ControlStatistics.holm([0.03]) == [0.03])
        #expect(ControlStatistics.holm([]).isEmpty)
    }

    @Test("Further conversion events are one Holm family: every variant × event p-value counts in m")
    func familyAcrossConversionEvents() throws {
        let fixture = try ReferenceFixture.load()
        // Event A: reference case 0 (control 500/10000, v1 560/10000, v2 505/9800), raw p 0.058258 and 0.623726.
        // Event B: reference case 3 (control 21/108, v1 17/97), raw p 0.724119.
        let first = fixture.cases[0]
        let third = fixture.cases[3]
        let comparisons = ControlStatistics.compareAll(events: [
            (variants: [first.arms[1].counts, first.arms[2].counts], control: first.arms[0].counts),
            (variants: [third.arms[1].counts], control: third.arms[0].counts),
        ])
        #expect(comparisons.map(\.count) == [2, 1])
        expectClose(comparisons[0][0].pValue, first.variants[0].pValuePooledZ, "A v1 raw")
        expectClose(comparisons[1][0].pValue, third.variants[0].pValuePooledZ, "B v1 raw")
        // m = 3: the smallest, 0.058258, times 3 = 0.174773; 0.623726 × 2 and 0.724119 × 1 are lifted to 1
        // (capped, then the running maximum).
        expectClose(comparisons[0][0].pValueHolm, 3 * 0.05825780603351623, "A v1 Holm")
        expectClose(comparisons[0][1].pValueHolm, 1, "A v2 Holm")
        expectClose(comparisons[1][0].pValueHolm, 1, "B v1 Holm")
    }
}
