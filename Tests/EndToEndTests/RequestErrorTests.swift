import Foundation
import Gzip
import Testing

/// Requests refused as a whole: no usable key (401), too large (413), wrong media type (415), not a batch
/// (400). Each answer carries `{"error":{"code","message"}}` and stores nothing.
@Suite struct RequestErrorTests {
    @Test("A request without a usable key is refused with 401, carries a request id and stores nothing")
    func missingOrUnknownKey() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let unknownKey = "cdl_ck_AAAAAAAAAAAA_" + String(repeating: "B", count: 32)

        for authorization in [nil, "Bearer \(unknownKey)", "Bearer ", "Basic dXNlcjpwYXNz"] {
            client.authorization = authorization
            let reply = try client.send(TestEvent.impressions(2))
            #expect(reply.status == 401, "Authorization: \(authorization ?? "(none)")")
            #expect(try ErrorBody(reply).code == "unauthorized")
            // Refused from the head alone (no key at all) or after a key lookup: either way the answer can be
            // matched to the daemon's log line.
            #expect(reply.header("X-Request-Id") != nil, "Authorization: \(authorization ?? "(none)")")
        }
        #expect(try fixture.tables().eventCount() == 0)
    }

    @Test("A revoked key stops working within the key cache time")
    func revokedKey() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--key-cache-ttl", "1s"])
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let emptyBatch = Array(#"{"events":[]}"#.utf8)
        #expect(try client.post(body: emptyBatch).status == 200)

        try CardinalCLI.revokeKey(fixture.key, databaseURL: fixture.database.url)

        try Poll.until("the revoked key to be refused", interval: .milliseconds(200)) {
            try client.post(body: emptyBatch).status == 401 ? true : nil
        }
        let reply = try client.send(TestEvent.impressions(3))
        #expect(reply.status == 401)
        #expect(try ErrorBody(reply).code == "unauthorized")
        #expect(try fixture.tables().eventCount() == 0)
    }

    @Test("A body larger than --max-body-bytes is refused with 413 and a JSON error")
    func bodyTooLarge() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--max-body-bytes", "4096"])
        defer { daemon.stop() }
        let events = TestEvent.impressions(60)
        #expect(TestEvent.jsonBatch(events).count > 4096)

        let reply = try fixture.client(of: daemon).send(events)

        #expect(reply.status == 413)
        #expect(try ErrorBody(reply).code == "payload_too_large")
        let small = try fixture.client(of: daemon).ingest(Array(events.prefix(5)))
        #expect(small.counts == .accepted(5))
        #expect(try fixture.tables().eventCount() == 5)
    }

    @Test("A small gzip body that inflates beyond --max-inflated-bytes is refused with 413")
    func gzipBomb() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--max-inflated-bytes", "65536", "--max-body-bytes", "65536"])
        defer { daemon.stop() }
        let inflated = Array(#"{"events":["#.utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 4 << 20) + Array("]}".utf8)
        let compressed = Gzip.deflate(inflated, level: 9)
        #expect(compressed.count < 65536, "the compressed body itself is within --max-body-bytes")

        let reply = try fixture.client(of: daemon).post(
            body: compressed, headers: [("Content-Encoding", "gzip")])

        #expect(reply.status == 413)
        #expect(try ErrorBody(reply).code == "payload_too_large")
    }

    @Test("A body in another media type or encoding is refused with 415")
    func unsupportedMediaType() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let body = TestEvent.jsonBatch(TestEvent.impressions(2))

        for contentType in ["text/plain", "application/xml", "multipart/form-data; boundary=x", nil] {
            let reply = try client.post(body: body, contentType: contentType)
            #expect(reply.status == 415, "Content-Type: \(contentType ?? "(none)")")
            #expect(try ErrorBody(reply).code == "unsupported_media_type")
        }
        let brotli = try client.post(body: body, headers: [("Content-Encoding", "br")])
        #expect(brotli.status == 415)
        #expect(try ErrorBody(brotli).code == "unsupported_encoding")
        #expect(try fixture.tables().eventCount() == 0)
    }

    @Test("A body that is not a batch at all is refused with 400")
    func notABatch() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let single = TestEvent.impression().json

        for (body, contentType) in [
            ("", "application/json"), ("not json", "application/json"), ("[\(single)]", "application/json"),
            (single, "application/json"), (#"{"event":[]}"#, "application/json"), (#"{"events":{}}"#, "application/json"),
            ("\n \n", "application/x-ndjson"),
        ] {
            let reply = try client.post(body: Array(body.utf8), contentType: contentType)
            #expect(reply.status == 400, "\(contentType) body \(body.prefix(30))")
            #expect(try ErrorBody(reply).code == "not_a_batch")
        }
        let corrupt = try client.post(body: Array("not gzip at all".utf8), headers: [("Content-Encoding", "gzip")])
        #expect(corrupt.status == 400)
        #expect(try ErrorBody(corrupt).code == "invalid_gzip")
        #expect(try fixture.tables().eventCount() == 0)
    }
}
