import CardinalReports
import Foundation
import Testing

/// The distribution functions against values from scipy 1.17.1 (`norm.cdf`, `norm.ppf`, `chi2.sf`, `gammaln`,
/// `betaln`) and against the C library's `erfc` and `lgamma`.
@Suite struct DistributionsTests {
    @Test("Φ of the 97.5% normal quantile is 0.975 and of its negative 0.025")
    func normalCDFAtTheNinetyFiveInterval() {
        expectRelativelyClose(Distributions.normalCDF(1.959963984540054), 0.975, relative: 1e-15, "Φ(1.96)")
        expectRelativelyClose(Distributions.normalCDF(-1.959963984540054), 0.025, relative: 1e-14, "Φ(−1.96)")
    }

    @Test("Φ matches scipy from the far lower tail to the upper one")
    func normalCDFMatchesScipy() {
        let values: [(x: Double, cdf: Double)] = [
            (-37.5, 4.605353009581954e-308), (-10, 7.61985302416047e-24), (-5, 2.866515718791933e-07),
            (-1, 0.15865525393145707), (0, 0.5), (0.5, 0.6914624612740131), (3, 0.9986501019683699),
            (8.2, 0.9999999999999999),
        ]
        for value in values {
            expectRelativelyClose(Distributions.normalCDF(value.x), value.cdf, relative: 1e-13, "Φ(\(value.x))")
        }
    }

    @Test("Φ agrees with the C library's erfc on a fine grid, to a relative error that grows only like x²")
    func normalCDFMatchesErfc() {
        for step in -800...800 {
            let x = Double(step) / 20
            let expected = 0.5 * erfc(-x / 2.0.squareRoot())
            // The tail is e^(−x²/2)·(…): an argument of size x²/2 carries x²/2 ulps of rounding into the result.
            expectRelativelyClose(Distributions.normalCDF(x), expected, relative: 1e-14 * max(1, x * x), "Φ(\(x))")
        }
    }

    @Test("Φ is 0 and 1 at the infinities and NaN only for NaN")
    func normalCDFAtTheEnds() {
        #expect(Distributions.normalCDF(-.infinity) == 0)
        #expect(Distributions.normalCDF(.infinity) == 1)
        #expect(Distributions.normalCDF(.nan).isNaN)
    }

    @Test("The normal quantile matches scipy, tails included")
    func normalQuantileMatchesScipy() {
        let values: [(p: Double, quantile: Double)] = [
            (1e-300, -37.0470962993612), (1e-10, -6.361340902404056), (0.001, -3.090232306167813),
            (0.02425, -1.972961051311885), (0.025, -1.9599639845400545), (0.3, -0.5244005127080409),
            (0.8, 0.8416212335729143), (0.975, 1.959963984540054), (0.999999, 4.753424308817087),
        ]
        for value in values {
            expectRelativelyClose(Distributions.normalQuantile(value.p), value.quantile, relative: 1e-9,
                                  "Φ⁻¹(\(value.p))")
        }
        #expect(Distributions.normalQuantile(0.5) == 0)
    }

    @Test("The refined normal quantile inverts Φ to about machine precision")
    func normalQuantileInvertsTheCDF() {
        for exponent in 1...300 where exponent % 7 == 0 || exponent < 10 {
            let p = pow(10, -Double(exponent))
            expectRelativelyClose(Distributions.normalCDF(Distributions.normalQuantile(p)), p, relative: 1e-12,
                                  "Φ(Φ⁻¹(1e−\(exponent)))")
        }
        for step in 1..<100 {
            let p = Double(step) / 100
            expectRelativelyClose(Distributions.normalCDF(Distributions.normalQuantile(p)), p, relative: 1e-14,
                                  "Φ(Φ⁻¹(\(p)))")
        }
    }

    @Test("The normal quantile of 0 and 1 is minus and plus infinity")
    func normalQuantileAtTheEnds() {
        #expect(Distributions.normalQuantile(0) == -.infinity)
        #expect(Distributions.normalQuantile(1) == .infinity)
    }

    @Test("Chi-square survival matches scipy, down to p-values of 1e−210")
    func chiSquareSurvivalMatchesScipy() {
        let values: [(x: Double, df: Int, survival: Double)] = [
            (3.841458820694124, 1, 0.04999999999999989), (5.991464547107979, 2, 0.05000000000000007),
            (1, 1, 0.31731050786291115), (0.5, 3, 0.9188914116546758), (10, 4, 0.04042768199451279),
            (100, 7, 1.0787979671702833e-18), (1000, 8, 1.4932281660406468e-210), (0.001, 5, 0.9999999983185123),
            (30, 30, 0.4656537089440098), (2.684563758389262, 2, 0.26124884959037464),
        ]
        for value in values {
            let survival = Distributions.chiSquareSurvival(value.x, degreesOfFreedom: value.df)
            expectRelativelyClose(survival, value.survival, relative: 1e-12, "χ²(\(value.df)) survival at \(value.x)")
        }
    }

    @Test("Chi-square survival of a statistic of zero or less is 1")
    func chiSquareSurvivalOfNothing() {
        #expect(Distributions.chiSquareSurvival(0, degreesOfFreedom: 3) == 1)
        #expect(Distributions.chiSquareSurvival(-2, degreesOfFreedom: 1) == 1)
        #expect(Distributions.chiSquareSurvival(.infinity, degreesOfFreedom: 2) == 0)
    }

    @Test("Log-gamma matches scipy from 1e−8 to 1e9")
    func logGammaMatchesScipy() {
        let values: [(x: Double, logGamma: Double)] = [
            (1e-8, 18.42068073818021), (0.1, 2.252712651734206), (0.5, 0.5723649429247),
            (1.5, -0.12078223763524526), (10, 12.801827480081469), (100.5, 361.43554046777757),
            (1e6, 12815504.569147611), (1e9, 19723265827.503716),
        ]
        for value in values {
            expectRelativelyClose(Distributions.logGamma(value.x), value.logGamma, relative: 1e-14, "lnΓ(\(value.x))")
        }
        #expect(abs(Distributions.logGamma(1)) < 1e-15)
        #expect(abs(Distributions.logGamma(2)) < 1e-15)
    }

    @Test("Log-gamma agrees with the C library's lgamma on a logarithmic grid")
    func logGammaMatchesLgamma() {
        for step in -80...90 {
            let x = pow(10, Double(step) / 10)
            // Glibc's tuple-returning lgamma is lgamma_r, which does not write the global signgam.
            let (expected, _): (Double, Int) = lgamma(x)
            let error = abs(Distributions.logGamma(x) - expected) / max(1, abs(expected))
            #expect(error < 1e-14, "lnΓ(\(x)): expected \(expected), got \(Distributions.logGamma(x))")
        }
    }

    @Test("Log-beta matches scipy, including arguments in the millions")
    func logBetaMatchesScipy() {
        let values: [(a: Double, b: Double, logBeta: Double)] = [
            (2, 3, -2.4849066497880004), (0.5, 0.5, 1.1447298858494), (1e6, 2e6, -1909548.2909685448),
            (100, 0.01, 4.553477757023117),
        ]
        for value in values {
            expectRelativelyClose(Distributions.logBeta(value.a, value.b), value.logBeta, relative: 1e-13,
                                  "ln B(\(value.a), \(value.b))")
        }
        #expect(abs(Distributions.logBeta(1, 1)) < 1e-14)
    }
}
