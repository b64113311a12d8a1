import Foundation
import Testing
@testable import CardinalCore

/// An event as ordered `name: JSON text` pairs, so a test can change one field and keep the rest valid.
struct EventJSON {
    var fields: [(name: String, json: String)]

    /// A valid content-card impression with an identified user and a campaign.
    static let impression = EventJSON(fields: [
        ("id", #""0b9a3f52-6a2e-4c1e-9d57-3f1c2b7e8a10""#),
        ("type", #""impression""#),
        ("channel", #""content_card""#),
        ("time", #""2025-05-31T12:00:00Z""#),
        ("user_id", #""user-1""#),
        ("campaign_id", #""camp-1""#),
    ])

    /// A valid event of `type`: a conversion gets a name and no channel or campaign, a session start neither, a
    /// delivery the push channel.
    static func of(_ type: EventType) -> EventJSON {
        let event = impression.with("type", Fixture.quoted(type.rawValue))
        switch type {
        case .conversion: return event.without("channel").without("campaign_id").with("name", #""purchase""#)
        case .sessionStart: return event.without("channel").without("campaign_id")
        case .delivery: return event.with("channel", #""push""#)
        case .send, .impression, .click, .dismissal: return event
        }
    }

    /// The event with `name` set to the JSON text `json`, replacing an existing value in place.
    func with(_ name: String, _ json: String) -> EventJSON {
        var copy = self
        if let index = copy.fields.firstIndex(where: { $0.name == name }) {
            copy.fields[index].json = json
        } else {
            copy.fields.append((name, json))
        }
        return copy
    }

    /// The event without the field `name`.
    func without(_ name: String) -> EventJSON {
        EventJSON(fields: fields.filter { $0.name != name })
    }

    /// The event as compact JSON text.
    var text: String {
        "{" + fields.map { "\(Fixture.quoted($0.name)):\($0.json)" }.joined(separator: ",") + "}"
    }
}

enum Fixture {
    /// The receipt time of every test request: 2025-06-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_748_736_000)
    /// `now` in epoch milliseconds.
    static let nowMilliseconds: Int64 = 1_748_736_000_000

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        JSONValue.string(text).compactText
    }

    /// Validates `event` with `policy` at ``now``.
    static func validate(_ event: EventJSON, policy: ValidationPolicy = ValidationPolicy()) -> Result<Event, EventRejection> {
        validate(text: event.text, policy: policy)
    }

    /// Validates the JSON text of one event with `policy` at ``now``.
    static func validate(text: String, policy: ValidationPolicy = ValidationPolicy()) -> Result<Event, EventRejection> {
        do {
            return EventValidator(policy: policy).validate(try JSONValue.parse(text), index: 0, now: now)
        } catch {
            Issue.record("test event is not valid JSON: \(error)")
            return .failure(EventRejection(index: 0, id: nil, code: .invalidJSON, message: "\(error)", rawJSON: text))
        }
    }

    /// The event `event` validates to, recording an issue when it is rejected.
    static func accepted(
        _ event: EventJSON, policy: ValidationPolicy = ValidationPolicy(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Event? {
        switch validate(event, policy: policy) {
        case .success(let validated):
            return validated
        case .failure(let rejection):
            Issue.record("expected acceptance, got \(rejection)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The rejection of `event`, recording an issue when it is accepted.
    static func rejected(
        _ event: EventJSON, policy: ValidationPolicy = ValidationPolicy(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> EventRejection? {
        switch validate(event, policy: policy) {
        case .success:
            Issue.record("expected a rejection of \(event.text)", sourceLocation: sourceLocation)
            return nil
        case .failure(let rejection):
            return rejection
        }
    }
}
