import Foundation
import Gzip

/// A client of one daemon, as an SDK would be: one keep-alive connection, reopened after it closes.
final class IngestClient {
    /// How a body is framed.
    enum Format {
        /// `application/json`: `{"events":[…]}`.
        case json
        /// `application/x-ndjson`: one event a line.
        case ndjson

        var contentType: String {
            switch self {
            case .json: "application/json"
            case .ndjson: "application/x-ndjson"
            }
        }
    }

    let port: UInt16
    /// The `Authorization` header sent by default: `Bearer <key>`, or none.
    var authorization: String?
    private var connection: HTTPConnection?

    /// A client of the daemon on `port` that authenticates with `key`.
    init(port: UInt16, key: String?) {
        self.port = port
        self.authorization = key.map { "Bearer \($0)" }
    }

    /// Posts `events` as one batch and returns the response, whatever it is.
    func send(_ events: [TestEvent], format: Format = .json, gzip: Bool = false) throws -> HTTPReply {
        try post(body: format == .json ? TestEvent.jsonBatch(events) : TestEvent.ndjson(events),
                 contentType: format.contentType, gzip: gzip)
    }

    /// Posts `events` and requires a 200, returning its per-event result.
    func ingest(_ events: [TestEvent], format: Format = .json, gzip: Bool = false) throws -> IngestResult {
        try IngestResult(try send(events, format: format, gzip: gzip))
    }

    /// Posts `body` to `/v1/events`.
    /// - Parameters:
    ///   - gzip: compress the body and say so in `Content-Encoding`.
    ///   - headers: more header fields (or overrides of `Content-Encoding`).
    ///   - afterSending: called once the request is fully sent.
    func post(
        body: [UInt8], contentType: String? = "application/json", gzip: Bool = false,
        headers extra: [(String, String)] = [], afterSending: () -> Void = {}
    ) throws -> HTTPReply {
        var headers: [(String, String)] = []
        if let authorization {
            headers.append(("Authorization", authorization))
        }
        if let contentType {
            headers.append(("Content-Type", contentType))
        }
        if gzip {
            headers.append(("Content-Encoding", "gzip"))
        }
        headers += extra
        return try exchange(method: "POST", path: "/v1/events", headers: headers,
                            body: gzip ? Gzip.deflate(body) : body, afterSending: afterSending)
    }

    /// Sends a `GET`.
    func get(_ path: String) throws -> HTTPReply {
        try exchange(method: "GET", path: path, headers: [], body: [])
    }

    /// Closes the connection; the next request opens a new one.
    func disconnect() {
        connection?.close()
        connection = nil
    }

    private func exchange(
        method: String, path: String, headers: [(String, String)], body: [UInt8], afterSending: () -> Void = {}
    ) throws(HTTPConnection.Failure) -> HTTPReply {
        if connection?.isOpen != true {
            connection = try HTTPConnection(port: port)
        }
        do {
            return try connection!.exchange(method: method, path: path, headers: headers, body: body,
                                            afterSending: afterSending)
        } catch {
            connection = nil
            throw error
        }
    }
}
