import CardinalCore
import Foundation
import PostgresClient

extension ControlReportRecord {
    /// A column of `cardinal.report_control` after `run_id` and `position`, with its value in a record.
    struct StoredColumn: Sendable {
        let name: String
        let sqlType: PostgresQuery
        let value: @Sendable (ControlReportRecord) -> JSONValue

        init(_ name: String, _ sqlType: PostgresQuery, _ value: @escaping @Sendable (ControlReportRecord) -> JSONValue) {
            self.name = name
            self.sqlType = sqlType
            self.value = value
        }

        static func number(_ name: String, _ value: @escaping @Sendable (ControlReportRecord) -> Double?) -> StoredColumn {
            StoredColumn(name, "double precision") { ReportJSON.number(value($0)) }
        }

        static func text(_ name: String, _ value: @escaping @Sendable (ControlReportRecord) -> String?) -> StoredColumn {
            StoredColumn(name, "text") { ReportJSON.string(value($0)) }
        }

        /// An interval of days and seconds, as the campaign settings hold it.
        static func interval(_ name: String, _ seconds: @escaping @Sendable (ControlReportRecord) -> Int?) -> StoredColumn {
            StoredColumn(name, "interval") { ReportJSON.string(seconds($0).map(SettingDuration.postgresText(seconds:))) }
        }
    }

    /// The columns of `cardinal.report_control` a stored run writes, in the table's order: the one place where
    /// a record's field meets its column.
    static let storedColumns: [StoredColumn] = [
        .text("app_name", \.arm.app),
        .text("campaign_id", \.arm.campaignID),
        .text("conversion_event", \.arm.conversionEvent),
        .interval("window_length", \.arm.window.seconds),
        StoredColumn("as_of", "timestamptz") { .string($0.asOf.postgresText) },
        .text("variant_id", \.arm.variantID),
        StoredColumn("control", "boolean") { .bool($0.arm.control) },
        StoredColumn("users", "bigint") { ReportJSON.integer($0.arm.users) },
        StoredColumn("converters", "bigint") { ReportJSON.integer($0.arm.converters) },
        .number("rate", \.rate),
        StoredColumn("exposed_users", "bigint") { ReportJSON.integer($0.arm.exposedUsers) },
        StoredColumn("users_in_several_arms", "bigint") { ReportJSON.integer($0.arm.usersInSeveralArms) },
        .number("difference", \.difference),
        .number("difference_ci95_lower", \.differenceLower),
        .number("difference_ci95_upper", \.differenceUpper),
        .number("relative_lift", \.relativeLift),
        .number("relative_lift_ci95_lower", \.relativeLiftLower),
        .number("relative_lift_ci95_upper", \.relativeLiftUpper),
        .number("z", \.z),
        .number("p_value", \.pValue),
        .number("p_value_holm", \.pValueHolm),
        .number("confidence", \.confidence),
        .number("chance_to_beat_control", \.chanceToBeatControl),
        .number("srm_chi2", \.srmChi2),
        StoredColumn("srm_df", "integer") { ReportJSON.integer($0.srmDegreesOfFreedom) },
        .number("srm_p_value", \.srmPValue),
        StoredColumn("srm_mismatch", "boolean") { ReportJSON.bool($0.srmMismatch) },
        .text("srm_skipped", \.srmSkipped),
        .text("srm_split_source", \.srmSplitSource?.rawValue),
        .number("always_valid_difference_ci95_lower", \.alwaysValidDifferenceLower),
        .number("always_valid_difference_ci95_upper", \.alwaysValidDifferenceUpper),
        .number("always_valid_lift_ci95_lower", \.alwaysValidLiftLower),
        .number("always_valid_lift_ci95_upper", \.alwaysValidLiftUpper),
        .number("always_valid_p_value", \.alwaysValidPValue),
        .number("always_valid_p_value_holm", \.alwaysValidPValueHolm),
        .text("significance", \.significance?.rawValue),
        .text("significance_source", \.significanceSource?.rawValue),
        StoredColumn("significant", "boolean") { ReportJSON.bool($0.significant) },
        .number("mde", \.minimumDetectableDifference),
        .number("mde_lift", \.minimumDetectableLift),
        .interval("cuped_window", \.cupedWindow?.seconds),
        .number("cuped_theta", \.cupedTheta),
        .number("cuped_difference", \.cupedDifference),
        .number("cuped_difference_ci95_lower", \.cupedDifferenceLower),
        .number("cuped_difference_ci95_upper", \.cupedDifferenceUpper),
        .number("cuped_lift", \.cupedLift),
        .number("cuped_lift_ci95_lower", \.cupedLiftLower),
        .number("cuped_lift_ci95_upper", \.cupedLiftUpper),
        .number("cuped_p_value", \.cupedPValue),
        .number("cuped_variance_reduction", \.cupedVarianceReduction),
    ]

    /// The names of ``storedColumns``, for the contract test against the table.
    public static var storedColumnNames: [String] {
        storedColumns.map(\.name)
    }

    /// The insert of `records` into `cardinal.report_control` under run `runID`.
    static func insertStatement(runID: Int64, _ records: [ControlReportRecord]) -> PostgresQuery {
        let insert = StoredRunInsert(columns: storedColumns.map { StoredRunInsert.Column(name: $0.name, sqlType: $0.sqlType) })
        return insert.statement(
            into: "cardinal.report_control", runID: runID,
            rows: records.map { record in storedColumns.map { $0.value(record) } }
        )
    }
}
