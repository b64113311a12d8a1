import CPostgreSQL

/// Adds connection parameters to a libpq connection string, in either of its forms, unless it sets them already.
///
/// libpq takes a URI (`postgresql://user@host:5432/database?application_name=x`) or `key=value` pairs; see
/// [Connection Strings](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING). A parameter
/// the caller wrote always wins over the one added here.
public enum ConnectionString {
    /// Parameters that make a connection notice within seconds that the server or the network to it is gone,
    /// instead of waiting for the kernel's defaults (two hours before the first keepalive probe, and about two
    /// minutes of SYN or data retransmissions):
    ///
    /// - `keepalives=1 keepalives_idle=5 keepalives_interval=2 keepalives_count=3`: an idle connection whose peer
    ///   stopped answering is closed after about 5 + 3 × 2 = 11 s;
    /// - `tcp_user_timeout=10000`: a connection whose sent data stays unacknowledged for 10 s is closed, so a
    ///   statement waiting on a silent network fails after 10 s (statement_timeout, enforced by the server,
    ///   cannot help when the server cannot be reached);
    /// - `connect_timeout=10`: a connection attempt gives up after 10 s.
    ///
    /// See [Parameter Key Words](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PARAMKEYWORDS).
    public static let deadPeerDetection: [(keyword: String, value: String)] = [
        ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "10000"), ("connect_timeout", "10"),
    ]

    /// `connectionString` with each of `parameters` that it does not set added: to the query of a URI
    /// (`?k=v` or `&k=v`), or as ` k=v` after `key=value` pairs.
    ///
    /// - Parameters:
    ///   - parameters: keywords and values; values must not need quoting or percent-encoding (numbers, words).
    ///   - connectionString: as the user gave it. A string libpq cannot parse is returned unchanged, so that
    ///     connecting reports the user's mistake, not ours.
    /// - Returns: the string to connect with.
    public static func adding(_ parameters: [(keyword: String, value: String)], to connectionString: String) -> String {
        guard let present = keywords(in: connectionString) else {
            return connectionString
        }
        let missing = parameters.filter { !present.contains($0.keyword) }
        guard !missing.isEmpty else {
            return connectionString
        }
        if isURI(connectionString) {
            let query = missing.map { "\($0.keyword)=\($0.value)" }.joined(separator: "&")
            let separator = if !connectionString.contains("?") {
                "?"
            } else if connectionString.hasSuffix("?") || connectionString.hasSuffix("&") {
                ""
            } else {
                "&"
            }
            return connectionString + separator + query
        }
        let pairs = missing.map { "\($0.keyword)=\($0.value)" }.joined(separator: " ")
        let trimmed = connectionString.trimmingWhitespace()
        return trimmed.isEmpty ? pairs : trimmed + " " + pairs
    }

    /// Whether libpq reads the string as a URI rather than as `key=value` pairs.
    static func isURI(_ connectionString: String) -> Bool {
        connectionString.hasPrefix("postgresql://") || connectionString.hasPrefix("postgres://")
    }

    /// The keywords the string sets, or nil when libpq cannot parse it.
    ///
    /// See [`PQconninfoParse`](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PQCONNINFOPARSE):
    /// every known keyword is in the result, with a NULL value unless the string sets it (no defaults, no
    /// environment).
    static func keywords(in connectionString: String) -> Set<String>? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        // OWNERSHIP: PQconninfoParse allocates either the options array (freed with PQconninfoFree) or the error
        // message (freed with PQfreemem); whichever it returned is freed before this function returns.
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var keywords: Set<String> = []
        var option = options
        // SAFETY: the array ends with an entry whose keyword is NULL; the strings are copied while it is alive.
        while let keyword = option.pointee.keyword {
            if option.pointee.val != nil {
                keywords.insert(String(cString: keyword))
            }
            option += 1
        }
        return keywords
    }
}
