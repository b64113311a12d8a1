/// The kinds of integration-health findings (`SQL/code/100_anomalies.sql`).
public enum AnomalyKind: String, Sendable, CaseIterable {
    /// Unique dismissals exceed unique impressions in a group.
    case dismissalsExceedImpressions = "dismissals_exceed_impressions"
    /// Users dismissed a message of the campaign with no earlier impression of it.
    case dismissalWithoutImpression = "dismissal_without_impression"
    /// Users clicked a message of the campaign with no earlier impression of it.
    case clickWithoutImpression = "click_without_impression"
    /// The campaign has a control arm but a group logs no control impressions, or (info) the campaign shows
    /// variants to 200 or more users and has no control exposure at all.
    case controlImpressionsMissing = "control_impressions_missing"
    /// Clicks or dismissals of control users, stored or rejected.
    case controlInteraction = "control_interaction"
    /// Users with a session (or a day without session) of impressions at least twice the channel's rule
    /// (three times for content cards).
    case repeatedImpressions = "repeated_impressions"
    /// Users who dismissed the same content card (message id) more than once.
    case repeatedDismissals = "repeated_dismissals"
    /// A campaign's push sends on a platform, 1000 or more, without a single open.
    case pushOpensMissing = "push_opens_missing"
    /// A campaign × channel × platform whose daily events fell by more than 90 % while another platform
    /// went on.
    case loggingStopped = "logging_stopped"
    /// Conversions that repeat an order stored before (the same app, conversion name, order and product),
    /// by app and SDK, not campaign.
    case repeatedConversions = "repeated_conversions"
    /// Users exposed to more than one arm of a campaign.
    case usersInSeveralArms = "users_in_several_arms"
    /// Arm sizes that do not fit the expected split (from the control report).
    case sampleRatioMismatch = "sample_ratio_mismatch"
    /// A variant that converts significantly less than control under the campaign's significance rule (from
    /// the control report).
    case variantWorseThanControl = "variant_worse_than_control"
}
