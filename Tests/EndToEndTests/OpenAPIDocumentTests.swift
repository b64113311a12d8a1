import CardinalCore
import Foundation
import Gzip
import Testing

/// docs/openapi.json is kept true: its shape is checked against the code's own lists, and every example
/// request in it is sent to the real daemon.
@Suite struct OpenAPIDocumentTests {
    @Test("docs/openapi.json describes every route, both body formats, every event field and every rejection code")
    func documentMatchesTheAPI() throws {
        let document = try OpenAPIDocument()
        #expect((document.root["openapi"] as? String)?.hasPrefix("3.0.") == true)
        #expect(Set(try document.object("paths").keys) == ["/v1/events", "/healthz", "/readyz", "/metrics"])
        let post = try document.object("paths", "/v1/events", "post")
        #expect((post["security"] as? [[String: [String]]])?.first?.keys.first == "ingestKey")
        let scheme = try document.object("components", "securitySchemes", "ingestKey")
        #expect(scheme["type"] as? String == "http" && scheme["scheme"] as? String == "bearer")
        let encoding = try document.resolve(try #require((post["parameters"] as? [[String: Any]])?.first))
        #expect(encoding["name"] as? String == "Content-Encoding" && encoding["in"] as? String == "header")
        #expect((try document.object(in: encoding, ["schema"])["enum"] as? [String])?.contains("gzip") == true)
        #expect(Set(try document.object(in: post, ["requestBody", "content"]).keys) == ["application/json", "application/x-ndjson"])

        let responses = try document.object(in: post, ["responses"])
        #expect(Set(["200", "400", "401", "413", "415", "429", "503"]).isSubset(of: Set(responses.keys)))
        for status in responses.keys where status != "200" {
            let schema = try document.object(in: responses, [status, "content", "application/json", "schema"])
            #expect(try document.propertyNames(of: schema) == ["error"], "\(status)")
        }
        #expect(try document.object(in: responses, ["503", "headers", "Retry-After", "schema"])["type"] as? String == "integer")
        #expect(try document.object("paths", "/readyz", "get", "responses", "503", "headers", "Retry-After").isEmpty == false)

        let event = try document.object("components", "schemas", "Event")
        #expect(event["additionalProperties"] as? Bool == false)
        #expect(event["required"] as? [String] == ["id", "type", "time"])
        #expect(try document.propertyNames(of: event) == Set(EventField.allCases.map(\.rawValue)))
        let properties = try document.object(in: event, ["properties"])
        // OpenAPI 3.0.3: `nullable: true` lets `null` through an `enum` only if the enum lists it.
        let enumeration = { (field: String) in ((properties[field] as? [String: Any])?["enum"] as? [Any]) ?? [] }
        let names = { (field: String) in Set(enumeration(field).compactMap { $0 as? String }) }
        let listsNull = { (field: String) in enumeration(field).contains { $0 is NSNull } }
        #expect(names("type") == Set(EventType.allCases.map(\.rawValue)) && !listsNull("type"))
        #expect(names("channel") == Set(Channel.allCases.map(\.rawValue)) && listsNull("channel"))
        #expect(names("platform") == Set(Platform.allCases.map(\.rawValue)) && listsNull("platform"))
        let maxLength = { (field: String) in (properties[field] as? [String: Any])?["maxLength"] as? Int }
        #expect(maxLength("user_id") == Limits.userIDMaxLength)
        for field in ["device_id", "session_id", "campaign_id", "canvas_id", "canvas_step_id", "variant_id", "message_id",
                      "placement_id", "button_id"] {
            #expect(maxLength(field) == Limits.identifierMaxLength, "\(field)")
        }
        #expect(maxLength("url") == Limits.urlMaxLength)
        #expect(["sdk_version", "app_version", "os_version"].allSatisfy { maxLength($0) == Limits.versionMaxLength })
        #expect(maxLength("name") == Limits.conversionNameMaxLength)

        let result = try document.object("components", "schemas", "BatchResult")
        #expect(result["additionalProperties"] as? Bool == false)
        #expect(try document.propertyNames(of: result) == ["accepted", "duplicates", "rejected", "errors"])
        let codes = try document.object("components", "schemas", "EventError", "properties", "code")["enum"] as? [String]
        #expect(Set(codes ?? []) == Set(RejectionCode.allCases.map(\.rawValue)))
    }

    @Test("Every example request of docs/openapi.json gets its documented status and response fields from the real daemon")
    func examplesAgainstTheDaemon() throws {
        let document = try OpenAPIDocument()
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon([
            "--max-body-bytes", "65536", "--max-inflated-bytes", "65536", "--retention-days", "36500",
        ])
        defer { daemon.stop() }
        let post = try document.object("paths", "/v1/events", "post")
        let responses = try document.object(in: post, ["responses"])
        var statusesSeen: Set<Int> = []

        for (mediaType, content) in try document.object(in: post, ["requestBody", "content"]) {
            let examples = try document.object(in: try #require(content as? [String: Any]), ["examples"])
            for (name, example) in examples.sorted(by: { $0.key < $1.key }) {
                let example = try #require(example as? [String: Any])
                let request = try ExampleRequest(example, mediaType: mediaType, key: fixture.key)
                let reply = try request.send(to: daemon.port)
                statusesSeen.insert(reply.status)

                #expect(reply.status == request.expectedStatus, "example \(name): \(reply.text)")
                #expect(responses[String(reply.status)] != nil, "example \(name): status \(reply.status) is documented")
                try Self.expectDocumentedBody(reply, responses: responses, document: document, example: name)
                if reply.status == 200 {
                    let result = try IngestResult(reply)
                    #expect(result.counts == request.expectedCounts, "example \(name): \(result)")
                }
            }
        }
        #expect(Set([200, 400, 401, 413, 415]).isSubset(of: statusesSeen), "every status a client can cause has an example")

        for (path, item) in try document.object("paths") where path != "/v1/events" {
            let get = try document.object(in: try #require(item as? [String: Any]), ["get"])
            let mediaType = try #require(try document.object(in: get, ["responses", "200", "content"]).keys.first)
            let reply = try IngestClient(port: daemon.port, key: nil).get(path)
            #expect(reply.status == 200, "GET \(path)")
            #expect(reply.header("Content-Type")?.hasPrefix(mediaType) == true, "GET \(path): \(reply.header("Content-Type") ?? "")")
        }
    }

    /// Checks that the body has exactly the fields of the schema documented for its status.
    private static func expectDocumentedBody(
        _ reply: HTTPReply, responses: [String: Any], document: OpenAPIDocument, example: String
    ) throws {
        let schema = try document.object(in: responses, [String(reply.status), "content", "application/json", "schema"])
        let body = try #require(try reply.json() as? [String: Any], "example \(example): a JSON object")
        #expect(Set(body.keys) == (try document.propertyNames(of: schema)), "example \(example): \(reply.text)")
        if reply.status == 200 {
            let itemSchema = try document.object("components", "schemas", "EventError")
            for item in body["errors"] as? [[String: Any]] ?? [] {
                #expect(Set(item.keys) == (try document.propertyNames(of: itemSchema)), "example \(example): \(item)")
            }
        } else {
            let inner = try document.object(in: schema, ["properties", "error"])
            #expect(Set((body["error"] as? [String: Any] ?? [:]).keys) == (try document.propertyNames(of: inner)))
        }
    }
}

/// An example of the document turned into a request, following its `x-cardinal-test` directions.
private struct ExampleRequest {
    let body: [UInt8]
    let headers: [(String, String)]
    let expectedStatus: Int
    let expectedCounts: IngestResult.Counts?

    init(_ example: [String: Any], mediaType: String, key: String) throws {
        let directions = try #require(example["x-cardinal-test"] as? [String: Any], "every example has x-cardinal-test")
        expectedStatus = try #require(directions["status"] as? Int)
        if let accepted = directions["accepted"] as? Int, let duplicates = directions["duplicates"] as? Int,
           let rejected = directions["rejected"] as? Int {
            expectedCounts = IngestResult.Counts(accepted: accepted, duplicates: duplicates, rejected: rejected)
        } else {
            expectedCounts = nil
        }
        let value = try #require(example["value"])
        var body = if let text = value as? String {
            Array(text.utf8)
        } else {
            Array(try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]))
        }
        body += [UInt8](repeating: UInt8(ascii: " "), count: directions["paddingBytes"] as? Int ?? 0)
        var headers = [("Content-Type", directions["contentType"] as? String ?? mediaType)]
        if let encoding = directions["contentEncoding"] as? String {
            headers.append(("Content-Encoding", encoding))
            body = Gzip.deflate(body, level: 9)
        }
        switch directions["authorization"] as? String ?? "valid" {
        case "valid": headers.append(("Authorization", "Bearer \(key)"))
        case "unknown": headers.append(("Authorization", "Bearer cdl_ck_AAAAAAAAAAAA_" + String(repeating: "B", count: 32)))
        default: break
        }
        self.body = body
        self.headers = headers
    }

    /// Sends the request on a connection of its own.
    func send(to port: UInt16) throws -> HTTPReply {
        let client = IngestClient(port: port, key: nil)
        return try client.post(body: body, contentType: nil, headers: headers)
    }
}
