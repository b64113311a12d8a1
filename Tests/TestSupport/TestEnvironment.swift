public import Foundation

/// Where the integration and end-to-end tests find their database and the built binaries. There are no
/// silent defaults: a missing variable is a failed test with a message that says how to set it.
public enum TestEnvironment {
    /// A failure to set the tests up; its message says what to do.
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The superuser URL of a maintenance database of the test cluster, e.g.
    /// `postgresql://postgres@127.0.0.1:54329/postgres`.
    public static func adminDatabaseURL() throws -> URLComponents {
        guard let value = ProcessInfo.processInfo.environment["CARDINAL_TEST_DATABASE_URL"], !value.isEmpty else {
            throw SetupError(description: """
                CARDINAL_TEST_DATABASE_URL is not set: set it to a superuser postgresql:// URL of the test cluster \
                (make test does this, after 'make db' started the private cluster)
                """)
        }
        guard let components = URLComponents(string: value), components.scheme?.hasPrefix("postgres") == true else {
            throw SetupError(description: "CARDINAL_TEST_DATABASE_URL must be a postgresql:// URL, got \(value)")
        }
        return components
    }

    /// The folder with the built `cardinal` and `cardinald` executables.
    public static func binaryDirectory() throws -> URL {
        guard let value = ProcessInfo.processInfo.environment["CARDINAL_BIN_DIR"], !value.isEmpty else {
            throw SetupError(description: """
                CARDINAL_BIN_DIR is not set: set it to the output of 'swift build --show-bin-path' (make test does this)
                """)
        }
        return URL(fileURLWithPath: value)
    }

    /// How many random workloads a property test runs: `CARDINAL_PROPERTY_WORKLOADS` when set (`make property`
    /// sets it for a longer run), else `defaultCount`, the number `make test` runs.
    public static func propertyWorkloads(default defaultCount: UInt64) throws -> UInt64 {
        guard let value = ProcessInfo.processInfo.environment["CARDINAL_PROPERTY_WORKLOADS"], !value.isEmpty else {
            return defaultCount
        }
        guard let count = UInt64(value), count > 0 else {
            throw SetupError(description: "CARDINAL_PROPERTY_WORKLOADS must be a positive whole number, got \(value)")
        }
        return count
    }

    /// The repository's root folder, found from this source file.
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
