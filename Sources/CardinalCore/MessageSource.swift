/// Where the message of an event comes from: a campaign, or one step of a canvas (a multi-step journey).
///
/// On the wire this is `campaign_id`, or `canvas_id` together with `canvas_step_id`; never both.
public enum MessageSource: Sendable, Equatable, Hashable {
    /// A message of the campaign with this id (`campaign_id`).
    case campaign(String)
    /// A message of one step (`canvas_step_id`) of the canvas `canvas_id`.
    case canvas(id: String, stepID: String)

    /// The campaign id, if the source is a campaign.
    public var campaignID: String? {
        if case .campaign(let id) = self { id } else { nil }
    }

    /// The canvas id, if the source is a canvas step.
    public var canvasID: String? {
        if case .canvas(let id, _) = self { id } else { nil }
    }

    /// The canvas step id, if the source is a canvas step.
    public var canvasStepID: String? {
        if case .canvas(_, let stepID) = self { stepID } else { nil }
    }
}
