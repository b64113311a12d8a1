import Foundation
import PostgresClient
import TestSupport

/// A login role that is a member of `cardinal_reader` and nothing else, as an operator makes for Grafana
/// (SQL/README.md, Roles): the dashboards' queries run with exactly the reader's privileges.
final class ReaderLogin {
    let name: String
    /// The database's URL with this role as the user.
    let url: String
    private let admin: PostgresConnection

    /// Creates the role in the cluster of `database`.
    init(database: TestDatabase) throws {
        name = "grafana_\(UUID().uuidString.prefix(8).lowercased())"
        admin = try database.connect()
        try admin.executeScript("create role \(name) login in role cardinal_reader")
        guard var components = URLComponents(string: database.url) else {
            throw SetupFailure(description: "not a URL: \(database.url)")
        }
        components.user = name
        url = components.string ?? ""
    }

    deinit {
        _ = try? admin.executeScript("drop role if exists \(name)")
    }

    /// A new connection as this role.
    func connect() throws -> PostgresConnection {
        try PostgresConnection(connectionString: url)
    }
}
