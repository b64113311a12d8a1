/// The two body formats of `POST /v1/events`, chosen by `Content-Type`.
public enum BatchFormat: Sendable, Equatable {
    /// `application/json`: `{"events":[…]}`.
    case json
    /// `application/x-ndjson`: one event object per line; blank lines are ignored.
    case ndjson
}
