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

/// The body of a `200` from `POST /v1/events`.
struct IngestResult: Equatable, CustomStringConvertible {
    /// One entry of `errors`.
    struct EventError: Equatable {
        let index: Int
        let id: String?
        let code: String
        let message: String
    }

    /// The three counts of a result.
    struct Counts: Equatable, CustomStringConvertible {
        let accepted: Int
        let duplicates: Int
        let rejected: Int

        /// `count` events stored, nothing else.
        static func accepted(_ count: Int) -> Counts {
            Counts(accepted: count, duplicates: 0, rejected: 0)
        }

        var description: String { "accepted \(accepted), duplicates \(duplicates), rejected \(rejected)" }
    }

    let accepted: Int
    let duplicates: Int
    let rejected: Int
    let errors: [EventError]

    /// The counts alone.
    var counts: Counts { Counts(accepted: accepted, duplicates: duplicates, rejected: rejected) }

    /// Decodes a `200` response; anything else is an error that shows the response.
    init(_ reply: HTTPReply) throws {
        guard reply.status == 200 else {
            throw UnexpectedReply(reply: reply)
        }
        guard let object = try reply.json() as? [String: Any],
              let accepted = object["accepted"] as? Int, let duplicates = object["duplicates"] as? Int,
              let rejected = object["rejected"] as? Int, let errors = object["errors"] as? [[String: Any]]
        else {
            throw UnexpectedReply(reply: reply)
        }
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected
        self.errors = try errors.map { entry in
            guard let index = entry["index"] as? Int, let code = entry["code"] as? String,
                  let message = entry["message"] as? String
            else {
                throw UnexpectedReply(reply: reply)
            }
            return EventError(index: index, id: entry["id"] as? String, code: code, message: message)
        }
    }

    var description: String {
        "\(counts), errors \(errors.map { "\($0.index):\($0.code)" })"
    }
}

/// A request-level error body: `{"error":{"code":"…","message":"…"}}`.
struct ErrorBody: Equatable {
    let code: String
    let message: String

    /// Decodes the body of `reply`, whatever its status.
    init(_ reply: HTTPReply) throws {
        guard let object = try? reply.json() as? [String: Any], object.count == 1,
              let error = object["error"] as? [String: Any], error.count == 2,
              let code = error["code"] as? String, let message = error["message"] as? String
        else {
            throw UnexpectedReply(reply: reply)
        }
        self.code = code
        self.message = message
    }
}

/// A response that is not what the test expected; its description shows it.
struct UnexpectedReply: Error, CustomStringConvertible {
    let reply: HTTPReply

    var description: String { "unexpected response \(reply.status): \(reply.text)" }
}
