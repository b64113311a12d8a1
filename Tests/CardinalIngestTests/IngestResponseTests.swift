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

    @Test("Every write failure that is worth retrying is a 503 with Retry-After; a refused batch is a 500")
    func failureStatuses() {
        for failure in [WriteFailure.databaseUnavailable, .queueFull, .timedOut, .shuttingDown] {
            let response = IngestResponse.failure(failure)
            #expect(response.status == 503)
            #expect(response.headers["Retry-After"] != nil)
        }
        let failed = IngestResponse.failure(.databaseFailed("42501: permission denied for table events"))
        #expect(failed.status == 500)
        #expect(!String(decoding: failed.body, as: UTF8.self).contains("42501"))
    }
}
