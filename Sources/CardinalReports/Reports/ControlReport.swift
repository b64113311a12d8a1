public import CardinalStore
public import Foundation

/// The control-group report: per campaign, matured users and converters per arm from `cardinal.control_arms`,
/// each variant against control (``ControlStatistics``), and a sample ratio check against the expected split
/// (equal shares when none is set).
public struct ControlReport: Sendable, Equatable {
    /// What the report covers.
    public var scope: ReportScope
    /// The maturity cut-off.
    public var asOf: Date
    /// Every campaign with an exposure in the range, control experiments or not (see
    /// ``ControlCampaign/isControlExperiment``); the renderings show the experiments, the sample ratio
    /// findings come from all.
    public var allCampaigns: [ControlCampaign]

    /// Creates a report from campaigns already built.
    public init(scope: ReportScope, asOf: Date, allCampaigns: [ControlCampaign]) {
        self.scope = scope
        self.asOf = asOf
        self.allCampaigns = allCampaigns
    }

    /// The campaigns the report is about: those with a conversion goal or a control arm.
    public var campaigns: [ControlCampaign] {
        allCampaigns.filter(\.isControlExperiment)
    }

    /// Computes the report.
    /// - Parameters:
    ///   - conversion: The conversion event for every campaign, instead of each one's setting.
    ///   - window: The conversion window for every campaign, instead of each one's setting.
    /// - Throws: `PostgresError`, ``ReportDecodingError``.
    public static func run(
        session: ReportSession, scope: ReportScope, asOf: Date, conversion: String? = nil,
        window: ConversionWindow? = nil
    ) throws -> ControlReport {
        let rows = try session.controlArms(scope, asOf: asOf, conversion: conversion, window: window)
        var splits: [CampaignKey: ExpectedSplit] = [:]
        for settings in try session.campaignSettings(app: scope.app) {
            splits[CampaignKey(app: settings.app, campaignID: settings.campaignID)] = settings.expectedSplit
        }
        return ControlReport(scope: scope, asOf: asOf, allCampaigns: build(rows: rows, splits: splits, asOf: asOf))
    }

    /// Identifies a campaign across apps.
    public struct CampaignKey: Sendable, Hashable {
        /// The app's name.
        public var app: String
        /// The campaign.
        public var campaignID: String

        /// Creates a key.
        public init(app: String, campaignID: String) {
            self.app = app
            self.campaignID = campaignID
        }
    }

    /// Groups the rows of `cardinal.control_arms` by campaign and computes the statistics; pure, so that the
    /// report logic is tested without a database.
    /// - Parameters:
    ///   - rows: The arms, in the SQL function's order (by app and campaign, control first).
    ///   - splits: The expected split of each campaign that has one.
    ///   - asOf: The maturity cut-off the rows were counted with.
    public static func build(
        rows: [ControlArmRow], splits: [CampaignKey: ExpectedSplit], asOf: Date
    ) -> [ControlCampaign] {
        var order: [CampaignKey] = []
        var grouped: [CampaignKey: [ControlArmRow]] = [:]
        for row in rows {
            let key = CampaignKey(app: row.app, campaignID: row.campaignID)
            if grouped[key] == nil {
                order.append(key)
            }
            grouped[key, default: []].append(row)
        }
        return order.compactMap { key in
            guard let campaignRows = grouped[key], let first = campaignRows.first else {
                return nil
            }
            let arms = campaignRows
                .map { ControlArm(variantID: $0.variantID, control: $0.control, users: $0.users,
                                  converters: $0.converters, exposedUsers: $0.exposedUsers) }
                .sorted { ($0.control ? 0 : 1, $0.variantID ?? "") < ($1.control ? 0 : 1, $1.variantID ?? "") }
            let (splitArms, outcome, skipped) = sampleRatio(arms: arms, split: splits[key])
            return ControlCampaign(
                app: key.app, campaignID: key.campaignID, conversionEvent: first.conversionEvent,
                window: first.window, asOf: asOf, arms: arms, comparisons: comparisons(arms: arms),
                splitArms: splitArms, sampleRatio: outcome, sampleRatioSkipped: skipped,
                usersInSeveralArms: first.usersInSeveralArms
            )
        }
    }

    /// Every variant arm against the control arm (no users when there is none), with Holm across them.
    private static func comparisons(arms: [ControlArm]) -> [ControlComparison] {
        let variants = arms.filter { !$0.control }
        let variantCounts = variants.compactMap(\.counts)
        guard !variants.isEmpty, variantCounts.count == variants.count else {
            return []
        }
        let control = arms.first(where: \.control)?.counts ?? ArmCounts(users: 0, converters: 0)
        let statistics = ControlStatistics.compareAll(variants: variantCounts, control: control)
        return zip(variants, statistics).map { ControlComparison(variantID: $0.variantID, statistics: $1) }
    }

    /// The sample ratio check over the observed arms and any arm the split names that had no users. Without
    /// a split every arm weighs the same; an observed arm the split does not name weighs 0, which skips the
    /// check, because no expected count can be given for it.
    private static func sampleRatio(
        arms: [ControlArm], split: ExpectedSplit?
    ) -> ([ControlCampaign.SplitArm], SampleRatioOutcome, String?) {
        var splitArms = arms.map { ControlCampaign.SplitArm(name: $0.splitName, users: $0.users, weight: 1) }
        if let split {
            for arm in split.arms where !splitArms.contains(where: { $0.name == arm.name }) {
                splitArms.append(ControlCampaign.SplitArm(name: arm.name, users: 0, weight: arm.weight))
            }
            for index in splitArms.indices {
                splitArms[index].weight = split.weight(of: splitArms[index].name) ?? 0
            }
        }
        let outcome = SampleRatioCheck.evaluate(observed: splitArms.map(\.users), expectedWeights: splitArms.map(\.weight))
        guard case .skipped(let reason) = outcome else {
            return (splitArms, outcome, nil)
        }
        if let split, let unnamed = splitArms.first(where: { split.weight(of: $0.name) == nil }) {
            return (splitArms, outcome, "arm \"\(unnamed.name)\" has users but is not in the expected split \(split)")
        }
        if case .expectedCountTooSmall(let index, let expected) = reason {
            let text = "arm \"\(splitArms[index].name)\" expects \(String(format: "%.1f", expected)) users, fewer "
                + "than the \(Int(SampleRatioCheck.minimumExpectedCount)) a chi-square test needs"
            return (splitArms, outcome, text)
        }
        return (splitArms, outcome, reason.description)
    }
}
