/// What `cardinal campaigns set` does to one setting: leave it as it is, set it, or reset it to its default.
public enum SettingChange<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Keep the stored value (or the default, for a new campaign).
    case keep
    /// Store this value.
    case set(Value)
    /// Go back to the default (no conversion event, 3 days, no split, the app's time zone, 12 hours of influenced opens,
    /// sequential significance, 14 days of CUPED window).
    case reset

    /// The value to store when the setting changes, `nil` for the default.
    var newValue: Value? {
        if case .set(let value) = self { value } else { nil }
    }

    /// Whether the stored value changes.
    var changes: Bool {
        self != .keep
    }
}
