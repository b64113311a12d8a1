import MicroHTTP
import Testing

@testable import CardinalIngest

@Suite struct RequestHeadCheckTests {
    private func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in pairs {
            headers.add(name: name, value: value)
        }
        return headers
    }

    private let validHeaders: [(String, String)] = [
        ("Authorization", "Bearer cdl_ck123_secret"), ("Content-Type", "application/json; charset=utf-8"),
    ]

    @Test("A well-formed events request goes on to have its body read")
    func wellFormedRequestPasses() {
        #expect(RequestHeadCheck().response(method: "POST", path: "/v1/events", headers: headers(validHeaders)) == nil)
    }

    @Test("A request without a bearer token is answered 401 before its body is read")
    func missingTokenIsUnauthorized() {
        let response = RequestHeadCheck().response(
            method: "POST", path: "/v1/events", headers: headers([("Content-Type", "application/json")])
        )
        #expect(response?.status == 401)
        let basic = RequestHeadCheck().response(
            method: "POST", path: "/v1/events",
            headers: headers([("Authorization", "Basic abc"), ("Content-Type", "application/json")])
        )
        #expect(basic?.status == 401)
    }

    @Test("A body that is neither JSON nor NDJSON is answered 415")
    func wrongContentTypeIsUnsupported() {
        let response = RequestHeadCheck().response(
            method: "POST", path: "/v1/events",
            headers: headers([("Authorization", "Bearer k"), ("Content-Type", "text/plain")])
        )
        #expect(response?.status == 415)
    }

    @Test("A content encoding other than gzip or identity is answered 415")
    func unknownEncodingIsUnsupported() {
        let response = RequestHeadCheck().response(
            method: "POST", path: "/v1/events", headers: headers(validHeaders + [("Content-Encoding", "br")])
        )
        #expect(response?.status == 415)
        let gzip = RequestHeadCheck().response(
            method: "POST", path: "/v1/events", headers: headers(validHeaders + [("Content-Encoding", "gzip")])
        )
        #expect(gzip == nil)
    }

    @Test("Unknown paths are 404 and wrong methods are 405 with an Allow header")
    func routingErrors() {
        #expect(RequestHeadCheck().response(method: "GET", path: "/v2/events", headers: headers([]))?.status == 404)
        let wrongMethod = RequestHeadCheck().response(method: "GET", path: "/v1/events", headers: headers([]))
        #expect(wrongMethod?.status == 405)
        #expect(wrongMethod?.headers["Allow"] == "POST")
        #expect(RequestHeadCheck().response(method: "GET", path: "/healthz", headers: headers([])) == nil)
    }

    @Test("NDJSON is recognised under both of its media types")
    func ndjsonMediaTypes() {
        #expect(RequestHeadCheck.batchFormat(contentType: "application/x-ndjson") == .ndjson)
        #expect(RequestHeadCheck.batchFormat(contentType: "application/ndjson") == .ndjson)
        #expect(RequestHeadCheck.batchFormat(contentType: "Application/JSON") == .json)
        #expect(RequestHeadCheck.batchFormat(contentType: nil) == nil)
    }
}
