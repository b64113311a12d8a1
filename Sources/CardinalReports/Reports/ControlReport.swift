public import CardinalStore
public import Foundation

/// The control-group report: per campaign, matured users and converters per arm from `cardinal.control_arms`,
/// each variant against control (``ControlStatistics``), and a sample ratio check against the expected split
/// when it is known: configured, or learned from the campaign's sends (never assumed equal).
public struct ControlReport: Sendable, Equatable {
    /// What the report covers.
    public var scope: ReportScope
    /// The maturity cut-off.
    public var asOf: Date
    /// Every campaign with an exposure in the range, control experiments or not (see
    /// ``ControlCampaign/isControlExperiment``); the renderings show the experiments, the sample ratio
    /// findings come from all.
    public var allCampaigns: [ControlCampaign]
    /// Which numbers decide `significant` for every campaign (`--significance`); `nil`: each campaign's
    /// setting (``significance(of:)``).
    public var significance: SignificanceRule?
    /// The relative lift the power figures plan for (`--target-lift`), if any.
    public var targetLift: Double?

    /// Creates a report from campaigns already built.
    public init(
        scope: ReportScope, asOf: Date, allCampaigns: [ControlCampaign], significance: SignificanceRule? = nil,
        targetLift: Double? = nil
    ) {
        self.scope = scope
        self.asOf = asOf
        self.allCampaigns = allCampaigns
        self.significance = significance
        self.targetLift = targetLift
    }

    /// The campaigns the report is about: those with a conversion goal or a control arm.
    public var campaigns: [ControlCampaign] {
        allCampaigns.filter(\.isControlExperiment)
    }

    /// The rule that decides `significant` for `campaign`, and where it came from: `--significance`, else the
    /// campaign's setting, else ``SignificanceRule/standard``.
    public func significance(of campaign: ControlCampaign) -> (rule: SignificanceRule, source: SignificanceSource) {
        if let significance {
            return (significance, .option)
        }
        if let setting = campaign.significanceSetting {
            return (setting, .campaign)
        }
        return (.standard, .default)
    }

    /// Computes the report.
    /// - Parameters:
    ///   - conversion: The conversion event for every campaign, instead of each one's setting; it replaces all
    ///     of a campaign's conversion events, so the report then has no further ones.
    ///   - window: The conversion window for every campaign and conversion event, instead of each one's setting.
    ///   - significance: Which numbers decide `significant` for every campaign; `nil`: each campaign's setting.
    ///   - targetLift: The relative lift the power figures plan for, if any.
    ///   - cuped: Whether to adjust the comparisons by CUPED, which reads each matured user's pre-exposure
    ///     conversions: `cardinal report control --cuped` and `report run --cuped` do; without it the report
    ///     saves that read.
    /// - Throws: `PostgresError`, ``ReportDecodingError``.
    public static func run(
        session: ReportSession, scope: ReportScope, asOf: Date, conversion: String? = nil,
        window: ConversionWindow? = nil, significance: SignificanceRule? = nil, targetLift: Double? = nil,
        cuped: Bool = false
    ) throws -> ControlReport {
        var report = try session.inOneSnapshot {
            try computed(session: session, scope: scope, asOf: asOf, conversion: conversion, window: window,
                         cuped: cuped)
        }
        report.significance = significance
        report.targetLift = targetLift
        return report
    }

    private static func computed(
        session: ReportSession, scope: ReportScope, asOf: Date, conversion: String?, window: ConversionWindow?,
        cuped: Bool
    ) throws -> ControlReport {
        let rows = try session.controlArms(scope, asOf: asOf, conversion: conversion, window: window)
        let settings = try session.campaignSettings(app: scope.app)
        var splits: [CampaignKey: ExpectedSplit] = [:]
        var rules: [CampaignKey: SignificanceRule] = [:]
        for campaign in settings {
            let key = CampaignKey(app: campaign.app, campaignID: campaign.campaignID)
            splits[key] = campaign.expectedSplit
            rules[key] = campaign.significance
        }
        // The further queries only when a campaign of the rows needs them (``build`` reads nothing else): its
        // further conversion events when it has any, its sends when its split is not configured (send_arms knows
        // campaigns only: a canvas's split is configured or unknown). One campaign's report with a configured
        // split and one conversion event is then one report function call, not three.
        let rowKeys = Set(rows.map { CampaignKey(app: $0.app, campaignID: $0.campaignID) })
        let hasFurtherEvents = settings.contains { campaign in
            !campaign.furtherConversionEvents.isEmpty
                && rowKeys.contains(CampaignKey(app: campaign.app, campaignID: campaign.campaignID))
        }
        let further = conversion == nil && hasFurtherEvents
            ? try session.controlArmConversions(scope, asOf: asOf, window: window) : []
        let sends = scope.canvas == nil && rowKeys.contains(where: { splits[$0] == nil })
            ? Dictionary(grouping: try session.sendArms(scope)) { CampaignKey(app: $0.app, campaignID: $0.campaignID) }
            : [:]
        // CUPED's sums only when a campaign has a conversion event: without one there is no y to adjust.
        let covariates = cuped && rows.contains { $0.conversionEvent != nil }
            ? try session.controlArmCovariates(scope, asOf: asOf, conversion: conversion, window: window) : []
        return ControlReport(
            scope: scope, asOf: asOf,
            allCampaigns: build(rows: rows, splits: splits, sends: sends, conversions: further, significance: rules,
                                covariates: covariates, asOf: asOf)
        )
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
    ///   - splits: The configured expected split of each campaign that has one.
    ///   - sends: The users sent to per arm (`cardinal.send_arms`) of each campaign with sends, from which an
    ///     expected split is learned when none is configured.
    ///   - conversions: The arms of each campaign's conversion events after the primary one
    ///     (`cardinal.control_arm_conversions`, ordinals 2 to 4).
    ///   - significance: The significance rule of each campaign that sets one.
    ///   - covariates: CUPED's sums per arm of the primary conversion event (`cardinal.control_arm_covariates`).
    ///   - asOf: The maturity cut-off the rows were counted with.
    public static func build(
        rows: [ControlArmRow], splits: [CampaignKey: ExpectedSplit], sends: [CampaignKey: [SendArmRow]] = [:],
        conversions: [ControlArmConversionRow] = [], significance: [CampaignKey: SignificanceRule] = [:],
        covariates: [ControlArmCovariateRow] = [], asOf: Date
    ) -> [ControlCampaign] {
        let conversionRows = Dictionary(grouping: conversions) { CampaignKey(app: $0.app, campaignID: $0.campaignID) }
        let covariateRows = Dictionary(grouping: covariates) { CampaignKey(app: $0.app, campaignID: $0.campaignID) }
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
            let (split, source) = expectedSplit(arms: arms, configured: splits[key], sends: sends[key] ?? [])
            let (splitArms, outcome, skipped) = sampleRatio(arms: arms, split: split)
            let campaignCovariates = covariateRows[key] ?? []
            return ControlCampaign(
                app: key.app, campaignID: key.campaignID, isCanvas: first.isCanvas,
                conversionEvent: first.conversionEvent, window: first.window, asOf: asOf, arms: arms,
                comparisons: adjusted(comparisons(arms: arms), by: campaignCovariates),
                furtherConversions: furtherConversions(arms: arms, rows: conversionRows[key] ?? []),
                expectedSplit: split, splitSource: source, splitArms: splitArms, sampleRatio: outcome,
                sampleRatioSkipped: skipped,
                usersInSeveralArms: first.usersInSeveralArms, significanceSetting: significance[key],
                cupedWindow: campaignCovariates.first.flatMap { CUPEDWindow(seconds: $0.windowSeconds) }
            )
        }
    }

    /// The campaign's arms on each further conversion event, and every variant against control on each, with
    /// Holm across all variant × event pairs (``ControlStatistics/compareAll(events:)``). An arm keeps its
    /// place and exposed users from the primary's arms; an arm without a row (none when the functions read one
    /// snapshot) has no converters, and then its event has no comparisons.
    private static func furtherConversions(arms: [ControlArm], rows: [ControlArmConversionRow]) -> [ControlConversion] {
        var order: [Int] = []
        var byOrdinal: [Int: [ControlArmConversionRow]] = [:]
        for row in rows {
            if byOrdinal[row.ordinal] == nil {
                order.append(row.ordinal)
            }
            byOrdinal[row.ordinal, default: []].append(row)
        }
        let events = order.compactMap { ordinal -> (ordinal: Int, name: String, arms: [ControlArm])? in
            guard let eventRows = byOrdinal[ordinal], let name = eventRows.first?.conversionEvent else {
                return nil
            }
            return (ordinal, name, arms.map { arm in
                let row = eventRows.first { $0.control == arm.control && $0.variantID == arm.variantID }
                return ControlArm(variantID: arm.variantID, control: arm.control, users: row?.users ?? arm.users,
                                  converters: row?.converters, exposedUsers: arm.exposedUsers)
            })
        }
        let compared = events.map { event -> (variants: [ArmCounts], control: ArmCounts)? in
            let variantCounts = event.arms.filter { !$0.control }.compactMap(\.counts)
            guard !variantCounts.isEmpty, variantCounts.count == event.arms.count(where: { !$0.control }) else {
                return nil
            }
            return (variantCounts, event.arms.first(where: \.control)?.counts ?? ArmCounts(users: 0, converters: 0))
        }
        var statistics = ControlStatistics.compareAll(events: compared.compactMap(\.self))[...]
        return zip(events, compared).map { event, counts in
            let variants = event.arms.filter { !$0.control }
            let eventStatistics = counts == nil ? [] : statistics.removeFirst()
            return ControlConversion(
                ordinal: event.ordinal, conversionEvent: event.name, arms: event.arms,
                comparisons: zip(variants, eventStatistics).map {
                    ControlComparison(variantID: $0.variantID, statistics: $1)
                }
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
}
