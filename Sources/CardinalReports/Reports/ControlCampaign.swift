public import CardinalStore
public import Foundation

/// One campaign of the control report: its arms, each variant against control, and the sample ratio check.
public struct ControlCampaign: Sendable, Equatable {
    /// The sample ratio check's view of one arm: its users and expected weight.
    public struct SplitArm: Sendable, Equatable {
        /// `control`, the variant id, or `default`.
        public var name: String
        /// Matured users of the arm (0 for an arm of the expected split that has none).
        public var users: Int
        /// The arm's weight in the expected split; 0 for an arm it does not name, and for every arm when the
        /// split is unknown.
        public var weight: Double
    }

    /// The app's name.
    public var app: String
    /// The campaign; in a canvas report (``isCanvas``) the canvas, whose id also keys its settings.
    public var campaignID: String
    /// Whether this is a canvas (`cardinal report control --canvas`) rather than a campaign.
    public var isCanvas = false
    /// The conversion event counted; `nil` when none is set (then there are no comparisons).
    public var conversionEvent: String?
    /// The conversion window.
    public var window: ConversionWindow
    /// The maturity cut-off.
    public var asOf: Date
    /// The arms, control first.
    public var arms: [ControlArm]
    /// Each variant arm against control, in the order of ``arms``; empty without a conversion event.
    public var comparisons: [ControlComparison]
    /// The campaign's conversion events after the primary one, in order, each with its arms and comparisons;
    /// empty when it has none or when `--conversion` replaces its events.
    public var furtherConversions: [ControlConversion] = []
    /// The split the sample ratio check tested against; `nil` when it is unknown.
    public var expectedSplit: ExpectedSplit?
    /// Where ``expectedSplit`` came from.
    public var splitSource: ExpectedSplitSource
    /// The arms as the sample ratio check saw them.
    public var splitArms: [SplitArm]
    /// The sample ratio check, or why it was skipped.
    public var sampleRatio: SampleRatioOutcome
    /// A sentence on why the check was skipped, naming arms; `nil` when it ran.
    public var sampleRatioSkipped: String?
    /// Users left out of every arm for being exposed to several.
    public var usersInSeveralArms: Int
    /// The campaign's significance rule (`campaigns set --significance`); `nil` when it sets none.
    public var significanceSetting: SignificanceRule?
    /// The pre-exposure window of CUPED's covariate; `nil` when the campaign has no covariate sums (no conversion
    /// event, or no matured user).
    public var cupedWindow: CUPEDWindow? = nil

    /// Whether the campaign belongs in the control report: it has a conversion goal or a control arm (observed
    /// or expected). The sample ratio check runs on every campaign regardless.
    public var isControlExperiment: Bool {
        conversionEvent != nil || arms.contains(where: \.control) || splitArms.contains { $0.name == "control" }
    }

    /// The control arm, if any user was exposed to it.
    public var controlArm: ControlArm? {
        arms.first(where: \.control)
    }
}
