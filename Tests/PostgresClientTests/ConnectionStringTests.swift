import PostgresClient
import Testing

@Suite("Adding connection parameters")
struct ConnectionStringTests {
    private static let detection = "keepalives=1 keepalives_idle=5 keepalives_interval=2 keepalives_count=3 "
        + "tcp_user_timeout=10000 connect_timeout=10"

    @Test("A URI without a query gets the dead-peer parameters as its query")
    func uriWithoutQuery() {
        let merged = ConnectionString.adding(ConnectionString.deadPeerDetection, to: "postgresql://cardinal@db:5432/cardinal")
        #expect(merged == "postgresql://cardinal@db:5432/cardinal?"
            + Self.detection.replacingOccurrences(of: " ", with: "&"))
    }

    @Test("A URI with a query keeps it and gets the parameters after it")
    func uriWithQuery() {
        let merged = ConnectionString.adding(
            ConnectionString.deadPeerDetection, to: "postgres://u@127.0.0.1:1/d?application_name=x&sslmode=disable")
        #expect(merged == "postgres://u@127.0.0.1:1/d?application_name=x&sslmode=disable&"
            + Self.detection.replacingOccurrences(of: " ", with: "&"))
    }

    @Test("A parameter the URI sets is kept as written and not added again")
    func uriSettingSome() {
        let merged = ConnectionString.adding(
            ConnectionString.deadPeerDetection, to: "postgresql://u@h/d?keepalives_idle=60&tcp_user_timeout=0")
        #expect(merged == "postgresql://u@h/d?keepalives_idle=60&tcp_user_timeout=0"
            + "&keepalives=1&keepalives_interval=2&keepalives_count=3&connect_timeout=10")
    }

    @Test("key=value pairs get the parameters appended as pairs")
    func keyValuePairs() {
        let merged = ConnectionString.adding(ConnectionString.deadPeerDetection, to: "host=db port=5432 dbname=cardinal ")
        #expect(merged == "host=db port=5432 dbname=cardinal " + Self.detection)
    }

    @Test("A parameter the key=value pairs set, quoted or not, is kept as written and not added again")
    func keyValueSettingSome() {
        let merged = ConnectionString.adding(
            ConnectionString.deadPeerDetection,
            to: "host=db keepalives = 0 connect_timeout='3' tcp_user_timeout=500 keepalives_idle=1 keepalives_interval=1 keepalives_count=1")
        #expect(merged == "host=db keepalives = 0 connect_timeout='3' tcp_user_timeout=500 keepalives_idle=1 keepalives_interval=1 keepalives_count=1")
    }

    @Test("An empty connection string (every libpq default) gets the pairs alone")
    func emptyString() {
        #expect(ConnectionString.adding([("keepalives", "1")], to: "") == "keepalives=1")
    }

    @Test("A string libpq cannot parse is returned unchanged, so connecting reports the user's mistake")
    func unparsable() {
        for broken in ["host=db no_such_option=1", "postgresql://u@[::1/d", "host='unterminated"] {
            #expect(ConnectionString.adding(ConnectionString.deadPeerDetection, to: broken) == broken)
        }
    }
}
