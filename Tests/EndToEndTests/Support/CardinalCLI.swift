import Foundation
import TestSupport

/// Runs the built `cardinal` and `cardinald` binaries, as an operator would.
enum CardinalCLI {
    /// The built executable `name` in CARDINAL_BIN_DIR.
    static func binary(_ name: String) throws -> URL {
        let url = try TestEnvironment.binaryDirectory().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw SetupFailure(description: """
                \(url.path) is missing: build first ('swift build'), and set CARDINAL_BIN_DIR to \
                'swift build --show-bin-path' (make test does both)
                """)
        }
        return url
    }

    /// Runs `cardinal` with `arguments` and returns whatever happened.
    static func run(_ arguments: [String]) throws -> CommandResult {
        try ChildProcess.run(try binary("cardinal"), arguments)
    }

    /// Runs `cardinal` and requires exit status 0.
    /// - Returns: its standard output.
    @discardableResult
    static func succeed(_ arguments: [String]) throws -> String {
        let result = try run(arguments)
        guard result.exitStatus == 0 else {
            throw SetupFailure(description: """
                cardinal \(arguments.first ?? "") … ended with \(result.termination): \(result.standardError)
                """)
        }
        return result.standardOutput
    }

    /// `cardinal migrate`.
    static func migrate(databaseURL: String) throws {
        try succeed(["migrate", "--database-url", databaseURL])
    }

    /// `cardinal apps create`.
    static func createApp(_ name: String, databaseURL: String) throws {
        try succeed(["apps", "create", name, "--database-url", databaseURL])
    }

    /// `cardinal keys create`: the new key, as printed alone on standard output.
    static func createKey(app: String, databaseURL: String) throws -> String {
        try succeed(["keys", "create", "--app", app, "--database-url", databaseURL])
            .trimmingCharacters(in: .newlines)
    }

    /// `cardinal keys revoke` of the key whose token is `key` (`cdl_<key id>_<secret>`).
    static func revokeKey(_ key: String, databaseURL: String) throws {
        let parts = key.split(separator: "_")
        guard parts.count == 4 else {
            throw SetupFailure(description: "not an ingest key token: \(key)")
        }
        try succeed(["keys", "revoke", "\(parts[1])_\(parts[2])", "--database-url", databaseURL])
    }
}

/// A test could not set up what it needs (a binary, a daemon, a key); the message says what and why.
struct SetupFailure: Error, CustomStringConvertible {
    let description: String
}
