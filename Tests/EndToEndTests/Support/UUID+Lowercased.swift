import Foundation

extension UUID {
    /// The canonical lower-case text, as PostgreSQL prints a uuid.
    var lowercased: String { uuidString.lowercased() }
}
