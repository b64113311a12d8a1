import CardinalCore
import Testing

@testable import CardinalIngest

@Suite struct IngestResponseTests {
    @Test("A batch result lists its counts in a fixed order, then one error per rejected event with a null id when unreadable")
    func batchResultBody() {
        let rejections = [
            EventRejection(index: 2, id: nil, code: .missingField, message: "field \"id\" is required", rawJSON: "{}"),
        ]
        let response = IngestResponse.batchResult(accepted: 3, duplicates: 1, rejections: rejections)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == """
            {"accepted":3,"duplicates":1,"rejected":1,"errors":[{"index":2,"id":null,"code":"missing_field",\
            "message":"field \\"id\\" is required"}]}
            """)
    }

    @Test("An event id is echoed in errors cut to 64 characters, a short one whole")
    func longIDIsCut() {
        let long = String(repeating: "x", count: 10_000)
        let rejections = [
            EventRejection(index: 0, id: long, code: .invalidUUID, message: "m", rawJSON: "{}"),
            EventRejection(index: 1, id: "bad", code: .invalidUUID, message: "m", rawJSON: "{}"),
        ]
        let body = String(decoding: IngestResponse.batchResult(accepted: 0, duplicates: 0, rejections: rejections).body,
                          as: UTF8.self)
        #expect(body.contains("\"id\":\"\(String(repeating: "x", count: 64))…\""))
        #expect(!body.contains(String(repeating: "x", count: 65)))
        #expect(body.contains("\"id\":\"bad\""))
    }

    @Test("Every write failure that is worth retrying is a 503 with Retry-After; a refused batch is a 500")
    func failureStatuses() {
        for failure in [WriteFailure.databaseUnavailable, .notReplicated, .queueFull, .timedOut, .shuttingDown] {
            let response = IngestResponse.failure(failure)
            #expect(response.status == 503)
            #expect(response.headers["Retry-After"] != nil)
        }
        let failed = IngestResponse.failure(.databaseFailed("42501: permission denied for table events"))
        #expect(failed.status == 500)
        #expect(!String(decoding: failed.body, as: UTF8.self).contains("42501"))
    }
}
