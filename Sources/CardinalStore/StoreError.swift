/// A request the store cannot carry out, with a message that says what to do instead.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An app of that name exists already.
    case appExists(String)
    /// No app has that name.
    case appNotFound(String)
    /// PostgreSQL does not know that time zone.
    case invalidTimeZone(String)
    /// No ingest key has that id.
    case keyNotFound(String)

    /// The message for the operator.
    public var description: String {
        switch self {
        case let .appExists(name):
            "an app named \"\(name)\" already exists; choose another name or use the existing app"
        case let .appNotFound(name):
            "no app named \"\(name)\"; list apps with 'cardinal apps list' or create it with 'cardinal apps create'"
        case let .invalidTimeZone(zone):
            "\"\(zone)\" is not a time zone PostgreSQL knows; use an IANA name such as Europe/Madrid or UTC"
        case let .keyNotFound(keyID):
            "no ingest key with id \"\(keyID)\"; list keys with 'cardinal keys list --app NAME'"
        }
    }
}
