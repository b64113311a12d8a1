import CardinalCore
import Foundation
import MicroHTTP

/// Checks made on a request's method, path and headers before its body is read, so that a client with a
/// missing key or a wrong content type is turned away without uploading a large body first.
struct RequestHeadCheck: Sendable {
    /// The largest body accepted as sent; a larger `Content-Length` is answered 413 here, with the API's JSON
    /// error body, before the HTTP server's own plain-text 413 would be.
    var maxBodyBytes = Int.max

    /// `nil` to go on and read the body, or the response to send at once.
    func response(method: String, path: String, headers: HTTPHeaders) -> HTTPResponse? {
        guard let route = Route(path: path) else {
            return IngestResponse.error(404, code: "not_found", message: "no such endpoint: \(path)")
        }
        guard route.method == method else {
            var response = IngestResponse.error(
                405, code: "method_not_allowed", message: "\(path) accepts \(route.method), not \(method)"
            )
            response.headers.add(name: "Allow", value: route.method)
            return response
        }
        guard route == .events else {
            return nil
        }
        if BearerToken(authorization: headers["Authorization"]) == nil {
            return IngestResponse.error(
                401, code: "unauthorized", message: "missing ingest key: send 'Authorization: Bearer <key>'"
            )
        }
        if Self.batchFormat(contentType: headers["Content-Type"]) == nil {
            return IngestResponse.error(
                415, code: "unsupported_media_type",
                message: "Content-Type must be application/json ({\"events\":[…]}) or application/x-ndjson"
            )
        }
        if ContentEncoding(header: headers["Content-Encoding"]) == nil {
            return IngestResponse.error(
                415, code: "unsupported_encoding", message: "Content-Encoding must be gzip or identity"
            )
        }
        if let length = headers["Content-Length"].flatMap({ Int($0) }), length > maxBodyBytes {
            return IngestResponse.error(
                413, code: "payload_too_large",
                message: "the body is \(length) bytes; this server accepts at most \(maxBodyBytes): send smaller batches"
            )
        }
        return nil
    }

    /// The batch format a `Content-Type` header names, ignoring parameters such as `charset`.
    static func batchFormat(contentType: String?) -> BatchFormat? {
        guard let contentType else {
            return nil
        }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        switch mediaType {
        case "application/json": return .json
        case "application/x-ndjson", "application/ndjson": return .ndjson
        default: return nil
        }
    }
}

/// The endpoints of the daemon.
enum Route: Equatable {
    case events, health, readiness, metrics

    init?(path: String) {
        switch path {
        case "/v1/events": self = .events
        case "/healthz": self = .health
        case "/readyz": self = .readiness
        case "/metrics": self = .metrics
        default: return nil
        }
    }

    var method: String { self == .events ? "POST" : "GET" }
}

/// How a request body is encoded.
enum ContentEncoding: Equatable {
    case identity, gzip

    init?(header: String?) {
        switch header?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "identity": self = .identity
        case "gzip", "x-gzip": self = .gzip
        default: return nil
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header.
struct BearerToken: Equatable {
    let value: String

    init?(authorization: String?) {
        guard let authorization else {
            return nil
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return nil
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else {
            return nil
        }
        value = token
    }
}
