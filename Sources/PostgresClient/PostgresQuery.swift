/// One SQL statement and the values it binds, built by string interpolation so that no `$n` is written by hand
/// and no value is spliced into the text.
///
/// ```swift
/// let query: PostgresQuery = "select name from cardinal.apps where app_id = \(appID) and name <> \(name)"
/// // sql: "select name from cardinal.apps where app_id = $1 and name <> $2", binds: [appID, name]
/// ```
///
/// What may go where:
/// - The literal text is SQL. It can only be a literal: the literal type is `StaticString`, so a `String` made
///   at run time cannot become SQL text through this type.
/// - `\(value)` of any ``PostgresEncodable`` (a `String` too), optional or not, appends the next `$k` and binds
///   the value; `nil` binds SQL NULL.
/// - `\(fragment)` of another `PostgresQuery` appends its text with its binds renumbered after those already
///   bound: fragments compose like values.
/// - `\(identifier: "cardinal", "apps")` appends a (qualified) name, each part double-quoted, so that even a
///   name made at run time is only ever a name; `\(identifiers: names)` a comma-separated list of them.
///
/// Modelled on postgres-nio's `PostgresQuery` (`ExpressibleByStringInterpolation`), without its
/// `unescaped:` interpolation: SQL that is not a literal is composed from fragments that are.
public struct PostgresQuery: Sendable {
    /// A piece of the statement: SQL text, or the placeholder of a bound value.
    enum Piece: Sendable {
        case text(String)
        /// The bind at this index of ``binds`` (0-based; the placeholder is `$index+1`).
        case bind(Int)
    }

    private(set) var pieces: [Piece] = []

    /// The values the statement binds, in placeholder order: `binds[0]` is `$1`; `nil` is SQL NULL.
    public private(set) var binds: [(any PostgresEncodable)?] = []

    /// The statement's text, with `$1…$n` where the values go.
    public var sql: String {
        var text = ""
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .bind(let index): text += "$\(index + 1)"
            }
        }
        return text
    }

    /// An empty statement, to append to.
    public init() {}

    /// Appends `other`'s text, its binds renumbered after this query's.
    public mutating func append(_ other: PostgresQuery) {
        let offset = binds.count
        for piece in other.pieces {
            switch piece {
            case .text(let text): appendText(text)
            case .bind(let index): pieces.append(.bind(index + offset))
            }
        }
        binds += other.binds
    }

    /// Appends SQL text; only `StringInterpolation` and ``identifier(_:)`` give text that is safe.
    private mutating func appendText(_ text: String) {
        if case .text(let last)? = pieces.last {
            pieces[pieces.count - 1] = .text(last + text)
        } else {
            pieces.append(.text(text))
        }
    }

    /// Binds `value` and appends its placeholder.
    private mutating func appendBind(_ value: (any PostgresEncodable)?) {
        pieces.append(.bind(binds.count))
        binds.append(value)
    }

    /// A name as SQL: each part in double quotes (a `"` in it doubled), the parts joined by `.`.
    ///
    /// Quoted names keep their case: `cardinal.apps` is `"cardinal"."apps"`, `Apps` is not `apps`.
    /// - Parameter parts: the schema, then the name (or the name alone); none may be empty or contain NUL.
    public static func identifier(_ parts: [String]) -> PostgresQuery {
        precondition(!parts.isEmpty, "an identifier needs at least one part")
        var query = PostgresQuery()
        query.appendText(parts.map(quoted).joined(separator: "."))
        return query
    }

    /// `"part"` with every `"` doubled, as PostgreSQL reads a quoted identifier
    /// ([4.1.1](https://www.postgresql.org/docs/15/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS)).
    private static func quoted(_ part: String) -> String {
        // Names come from code (column lists, table names), never from outside input.
        precondition(!part.isEmpty && !part.utf8.contains(0), "an identifier part must be non-empty and hold no NUL")
        return "\"" + part.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension PostgresQuery: ExpressibleByStringInterpolation {
    /// A statement of literal SQL text only.
    public init(stringLiteral value: StaticString) {
        appendText(value.description)
    }

    /// A statement built by interpolation (see ``PostgresQuery``).
    public init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.query
    }

    /// Collects the literal text and the interpolated values of a ``PostgresQuery`` literal.
    public struct StringInterpolation: StringInterpolationProtocol {
        var query = PostgresQuery()

        /// Starts an empty statement.
        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Appends literal SQL text.
        public mutating func appendLiteral(_ literal: StaticString) {
            query.appendText(literal.description)
        }

        /// Binds `value` (SQL NULL for `nil`) and appends its placeholder `$k`.
        public mutating func appendInterpolation(_ value: (any PostgresEncodable)?) {
            query.appendBind(value)
        }

        /// Appends `fragment`, its binds renumbered after those bound so far.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            query.append(fragment)
        }

        /// Appends a quoted, optionally qualified name: `\(identifier: "cardinal", "apps")`.
        public mutating func appendInterpolation(identifier first: String, _ rest: String...) {
            query.append(.identifier([first] + rest))
        }

        /// Appends quoted names separated by `, `, such as a column list.
        public mutating func appendInterpolation(identifiers names: [String]) {
            query.append(names.map { PostgresQuery.identifier([$0]) }.joined(separator: ", "))
        }
    }
}

extension Sequence<PostgresQuery> {
    /// The fragments one after the other, `separator` between each two, their binds renumbered in order.
    public func joined(separator: PostgresQuery) -> PostgresQuery {
        var result = PostgresQuery()
        for (offset, fragment) in enumerated() {
            if offset > 0 {
                result.append(separator)
            }
            result.append(fragment)
        }
        return result
    }
}

extension PostgresQuery: CustomStringConvertible {
    /// The SQL text with its placeholders; the bound values are not shown (they may be personal data).
    public var description: String { sql }
}
