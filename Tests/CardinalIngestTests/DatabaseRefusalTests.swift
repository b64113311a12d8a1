import PostgresClient
import Testing

@testable import CardinalIngest

@Suite struct DatabaseRefusalTests {
    static func serverError(_ code: String, constraint: String? = nil, detail: String? = nil) -> PostgresError {
        PostgresError(code: .server, message: "m", sqlState: SQLState(rawValue: code), detail: detail, constraint: constraint)
    }

    @Test("Data exceptions, constraint violations other than unique ones, and program limits are data errors",
          arguments: ["22003", "22P02", "22021", "23514", "23502", "54000"])
    func dataErrors(code: String) {
        #expect(Self.serverError(code).isDataError)
    }

    @Test("Unique violations, deadlocks, timeouts, privileges and connection failures are not data errors",
          arguments: ["23505", "40P01", "57014", "42501", "08006", "53300"])
    func notDataErrors(code: String) {
        #expect(!Self.serverError(code).isDataError)
    }

    @Test("A missing partition and a failed CHECK share 23514 but only the CHECK names a constraint")
    func partitionVersusCheck() {
        #expect(Self.serverError("23514").isNoPartitionForRow)
        #expect(!Self.serverError("23514", constraint: "events_conversion_name_format").isNoPartitionForRow)
        #expect(!PostgresError(code: .connectionFailed, message: "m").isNoPartitionForRow)
    }

    @Test("A refusal names the SQLSTATE and constraint but never the DETAIL, which quotes the row")
    func refusalMessage() {
        let refusal = DatabaseBatchSink.refusal(Self.serverError(
            "23514", constraint: "events_conversion_name_format", detail: "Failing row contains (secret-user)."))
        #expect(refusal.code == .databaseRefused)
        #expect(refusal.message.contains("\"events_conversion_name_format\""))
        #expect(refusal.message.contains("23514"))
        #expect(!refusal.message.contains("secret-user"))
    }
}
