import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// CUPED in the control report on hand-built events: the twelve users of ``CUPEDEstimatorTests`` (and of the
/// worked example in docs/experiment-statistics.md), each made of real impressions and purchases. Every user is
/// exposed on day 10 at 01:00 UTC (Tokyo day 10), c1's window is the default 3 days and its CUPED window the
/// default 14 days, so x counts purchases in [day −4 01:00, day 10 01:00) and y a purchase in
/// [day 10 01:00, day 13 01:00].
@Suite struct ControlCUPEDTests {
    /// Each user's (x, y) of the example, as events: control (0,0) (1,1) (2,1) (1,0) (3,1) (0,0), variant (0,1)
    /// (2,1) (1,1) (1,0) (3,1) (0,0). v4's purchase on day 6 is left out: the test writes it after the fold.
    private func example(_ scenario: ReportScenario) -> [Event] {
        let exposure = scenario.time(10, "01:00")
        func purchase(_ day: Int, _ clock: String, _ user: String) -> Event {
            conversion("purchase", at: scenario.time(day, clock), user: user)
        }
        var events = ["c1", "c2", "c3", "c4", "c5", "c6"].map {
            event(.impression, at: exposure, user: $0, variant: nil, control: true)
        }
        events += ["v1", "v2", "v3", "v4", "v5", "v6"].map { event(.impression, at: exposure, user: $0) }
        events += [
            // c1 (0, 0): one second before the CUPED window opens.
            purchase(-4, "00:59:59", "c1"),
            // c2 (1, 1): at the very second the window opens (exposure − 14 days), and on day 11.
            purchase(-4, "01:00", "c2"), purchase(11, "12:00", "c2"),
            // c3 (2, 1): days 5 and 9; the purchase at the second of exposure is y, not x.
            purchase(5, "12:00", "c3"), purchase(9, "12:00", "c3"), purchase(10, "01:00", "c3"),
            // c4 (1, 0): day 9 23:00; day 13 02:00 is an hour after the conversion window.
            purchase(9, "23:00", "c4"), purchase(13, "02:00", "c4"),
            // c5 (3, 1): days 7, 8 and 9, a signup (another event, not counted), and a purchase on day 10.
            purchase(7, "12:00", "c5"), purchase(8, "12:00", "c5"), purchase(9, "12:00", "c5"),
            conversion("signup", at: scenario.time(9, "13:00"), user: "c5"), purchase(10, "05:00", "c5"),
            // v1 (0, 1), v2 (2, 1), v3 (1, 1: day 12 00:59 is inside the window), v5 (3, 1).
            purchase(10, "03:00", "v1"),
            purchase(8, "12:00", "v2"), purchase(9, "12:00", "v2"), purchase(11, "12:00", "v2"),
            purchase(9, "12:00", "v3"), purchase(12, "00:59", "v3"),
            purchase(3, "12:00", "v5"), purchase(4, "12:00", "v5"), purchase(5, "12:00", "v5"),
            purchase(10, "02:00", "v5"),
            // Exposed to both arms: left out of both, whatever it bought before.
            event(.impression, at: exposure, user: "both"),
            event(.impression, at: exposure, user: "both", variant: nil, control: true),
            purchase(9, "12:00", "both"), purchase(10, "12:00", "both"),
        ]
        return events
    }

    /// v4's only purchase, 4 days before exposure: x = 1.
    private func pendingPurchase(_ scenario: ReportScenario) -> Event {
        conversion("purchase", at: scenario.time(6, "12:00"), user: "v4")
    }

    /// c1's covariate sums from `function` (control_arm_covariates or its reference), one line per arm:
    /// "arm window users converters Σx Σx² Σxy".
    private func sums(_ scenario: ReportScenario, function: String) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s %s %s %s', case when control then 'control' else variant_id end,
                          pre_exposure_window, users, converters, sum_x, sum_x_squares, sum_xy)
            from cardinal.\(function)($1, 'c1', $2, $3, $4)
            order by control desc, variant_id
            """,
            [ReportScenario.appName, scenario.day(10), scenario.day(10), scenario.time(20, "00:00")]
        ).map { try $0.decode(String.self, at: 0) }
    }

    private func fold(_ scenario: ReportScenario) throws {
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)
    }

    /// c1 counts purchases; the example folded, then v4's purchase written and left pending.
    private func writeFoldedExampleAndPendingPurchase(_ scenario: ReportScenario) throws {
        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        try scenario.write(example(scenario))
        try fold(scenario)
        try scenario.write([pendingPurchase(scenario)])
    }

    private func report(_ scenario: ReportScenario) throws -> ControlCampaign {
        try #require(try ControlReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(20, "00:00"), cuped: true
        ).campaigns.first)
    }

    @Test("Each arm's sums count the purchases before exposure in the window, from state and pending events alike")
    func sumsFromStateAndPendingEvents() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFoldedExampleAndPendingPurchase(scenario)
        // Control: n 6, Σy 3, Σx 0+1+2+1+3+0 = 7, Σx² 0+1+4+1+9+0 = 15, Σxy 1+2+3 = 6; the variant the same
        // but Σy 4 (v1, v2, v3, v5), Σxy 0+2+1+3 = 6 with v4's pending purchase in Σx = 7 and Σx² = 15.
        let expected = ["control 14 days 6 3 7 15 6", "v1 14 days 6 4 7 15 6"]
        #expect(try sums(scenario, function: "control_arm_covariates") == expected)
        #expect(try sums(scenario, function: "control_arm_covariates_reference") == expected)
        try fold(scenario)
        #expect(try sums(scenario, function: "control_arm_covariates") == expected)
    }

    @Test("A campaign's new CUPED window measures its users' purchases again, folded or pending, as the reference does")
    func changedWindowMeasuresFoldedUsersAgain() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // v4's purchase stays pending: its row is measured again by the pending read, the folded ones by the
        // settings trigger.
        try writeFoldedExampleAndPendingPurchase(scenario)
        // One hour before exposure holds no purchase of the example (c4's, the latest, is two hours before).
        try scenario.settings("c1", CampaignSettingsUpdate(cupedWindow: .set(try CUPEDWindow(parsing: "1h"))))
        let none = ["control 01:00:00 6 3 0 0 0", "v1 01:00:00 6 4 0 0 0"]
        #expect(try sums(scenario, function: "control_arm_covariates") == none)
        #expect(try sums(scenario, function: "control_arm_covariates_reference") == none)
        // Five days, [day 5 01:00, day 10 01:00): control x c3 2 (y), c4 1, c5 3 (y), so Σx 6, Σx² 14, Σxy 5;
        // variant x v2 2 (y), v3 1 (y), v4 1, v5 1 (y: day 5 12:00 only), so Σx 5, Σx² 7, Σxy 4.
        try scenario.settings("c1", CampaignSettingsUpdate(cupedWindow: .set(try CUPEDWindow(parsing: "5d"))))
        let fiveDays = ["control 5 days 6 3 6 14 5", "v1 5 days 6 4 5 7 4"]
        #expect(try sums(scenario, function: "control_arm_covariates") == fiveDays)
        #expect(try sums(scenario, function: "control_arm_covariates_reference") == fiveDays)
        try fold(scenario)
        #expect(try sums(scenario, function: "control_arm_covariates") == fiveDays)
    }

    @Test("The control report adjusts the variant by CUPED: θ 23/82, the difference 1/6 and a 37.9 % reduction")
    func reportAdjustsTheLift() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFoldedExampleAndPendingPurchase(scenario)
        let campaign = try report(scenario)
        #expect(campaign.cupedWindow == .standard)
        let cuped = try #require(campaign.comparisons.first?.cuped)
        // The numbers of CUPEDEstimatorTests, worked by hand there: equal covariate means (7/6 in both arms)
        // leave the difference at 4/6 − 3/6 and the lift at 1/3; V = 0.0586043 against 0.0944444 unadjusted.
        let expectations: [(String, Double?, Double)] = [
            ("θ", cuped.theta, 23.0 / 82), ("difference", cuped.difference, 1.0 / 6),
            ("lift", cuped.relativeLift, 1.0 / 3),
            ("difference lower", cuped.differenceCI95?.lower, -0.3078079308),
            ("difference upper", cuped.differenceCI95?.upper, 0.6411412641),
            ("lift lower", cuped.relativeLiftCI95?.lower, -0.7406948450),
            ("lift upper", cuped.relativeLiftCI95?.upper, 1.4073615117),
            ("p", cuped.pValue, 0.4911579996), ("variance reduction", cuped.varianceReduction, 0.3794835007),
        ]
        for (what, actual, expected) in expectations {
            #expect(abs((actual ?? .nan) - expected) < 1e-9, "\(what): \(String(describing: actual)) ≠ \(expected)")
        }
        let json = try JSONValue.parse(ControlReport(
            scope: scenario.scope(10, 10), asOf: scenario.time(20, "00:00"), allCampaigns: [campaign]
        ).render(.json))
        #expect(json.compactText.contains(#""cuped_window_days":14"#), "\(json.compactText)")
        #expect(json.compactText.contains(#""variance_reduction":0.379483500"#), "\(json.compactText)")
    }

    @Test("Without a purchase in the campaign's CUPED window the report shows no adjustment")
    func noCovariateNoAdjustment() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // One hour before exposure holds no purchase of the example (c4's, the latest, is two hours before).
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), cupedWindow: .set(try CUPEDWindow(parsing: "1h"))
        ))
        try scenario.write(example(scenario) + [pendingPurchase(scenario)])
        #expect(try sums(scenario, function: "control_arm_covariates")
            == ["control 01:00:00 6 3 0 0 0", "v1 01:00:00 6 4 0 0 0"])
        let campaign = try report(scenario)
        #expect(campaign.cupedWindow?.seconds == 3_600)
        #expect(campaign.comparisons.count == 1)
        #expect(campaign.comparisons.first?.cuped == nil)
    }
}
