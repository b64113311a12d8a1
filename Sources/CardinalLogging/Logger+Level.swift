extension Logger {
    /// How severe a line is; a logger writes the lines at its minimum level and above.
    public enum Level: String, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// The name used in log lines and `--log-level`.
        public var name: String { rawValue }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.severity < rhs.severity }

        /// The rank among the cases, declared from the least severe.
        private var severity: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    }
}
