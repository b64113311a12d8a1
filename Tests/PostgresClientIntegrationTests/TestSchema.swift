import Foundation
import PostgresClient

/// The test server's address, from CARDINAL_TEST_DATABASE_URL, and connection strings derived from it.
enum TestServer {
    struct MissingConfiguration: Error, CustomStringConvertible {
        var description: String { "set CARDINAL_TEST_DATABASE_URL (make test does this)" }
    }

    /// The superuser URL of the maintenance database; throws (failing the test) when the variable is unset.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["CARDINAL_TEST_DATABASE_URL"], !url.isEmpty else {
            throw MissingConfiguration()
        }
        return url
    }

    /// The test URL with extra libpq parameters, in URI or key=value form as the URL itself is written.
    static func url(adding parameters: KeyValuePairs<String, String>) throws -> String {
        var url = try url()
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            for (key, value) in parameters {
                let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
                url += (url.contains("?") ? "&" : "?") + "\(key)=\(encoded)"
            }
        } else {
            for (key, value) in parameters {
                url += " \(key)='\(value.replacingOccurrences(of: "'", with: "\\'"))'"
            }
        }
        return url
    }

    /// The test URL pointing at another database.
    static func url(database: String) throws -> String {
        let url = try url()
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else { return url + " dbname=\(database)" }
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }
}

/// A schema of its own for one test, so tests can run in parallel; dropped when the test ends.
struct TestSchema {
    /// The schema's name, which is also the `application_name` of its connections.
    let name: String
    /// Connects as the test server's superuser with `search_path` set to the schema.
    let connectionString: String

    /// Creates a fresh schema, runs `body`, then drops the schema and everything in it.
    static func with<T>(_ body: (TestSchema) throws -> T) throws -> T {
        let admin = try PostgresConnection(connectionString: TestServer.url())
        let name = "pgclient_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try admin.execute("create schema \(identifier: name)")
        defer { _ = try? admin.execute("drop schema \(identifier: name) cascade") }
        let connectionString = try TestServer.url(adding: ["options": "-c search_path=\(name)", "application_name": name])
        return try body(TestSchema(name: name, connectionString: connectionString))
    }

    /// A new connection to the schema.
    func connect() throws -> PostgresConnection {
        try PostgresConnection(connectionString: connectionString)
    }
}

/// Runs `body` on `count` new threads at once and returns when all have finished.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
