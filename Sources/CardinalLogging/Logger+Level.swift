extension Logger {
    /// How severe a line is; a logger writes the lines at its minimum level and above.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// The name used in log lines and `--log-level`.
        public var name: String { String(describing: self) }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}
