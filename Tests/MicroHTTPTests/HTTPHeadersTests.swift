import MicroHTTP
import Testing

@Suite struct HTTPHeadersTests {
    @Test("Lookup ignores letter case and returns the first of repeated fields")
    func caseInsensitiveLookup() {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "X-Tag", value: "a")
        headers.add(name: "x-tag", value: "b")

        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers["X-TAG"] == "a")
        #expect(headers.values(for: "x-Tag") == ["a", "b"])
        #expect(headers["Content-Length"] == nil)
        #expect(headers["Content-Typ"] == nil)
    }

    @Test("Fields keep their order, and replaceOrAdd and remove act on every field of a name")
    func orderAndEditing() {
        var headers: HTTPHeaders = ["Retry-After": "1", "Cache-Control": "no-store", "retry-after": "2"]

        headers.replaceOrAdd(name: "RETRY-AFTER", value: "5")
        #expect(headers.map(\.name) == ["Cache-Control", "RETRY-AFTER"])
        #expect(headers["retry-after"] == "5")

        headers.remove(name: "cache-control")
        #expect(headers.count == 1)
        #expect(headers.map(\.value) == ["5"])
    }

    @Test("Response helpers set the content type and encode the body")
    func responseHelpers() {
        let json = HTTPResponse.json(201, Array("{}".utf8))
        let text = HTTPResponse.text(503, "busy", contentType: "text/plain")

        #expect(json.status == 201)
        #expect(json.headers["content-type"] == "application/json")
        #expect(json.body == Array("{}".utf8))
        #expect(text.headers["Content-Type"] == "text/plain")
        #expect(text.body == Array("busy".utf8))
    }
}
