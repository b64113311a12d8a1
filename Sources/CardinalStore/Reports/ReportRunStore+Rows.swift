import CardinalCore
import Foundation
import PostgresClient

/// The result rows of a run go to the database as one JSON array per table and are expanded there by
/// `jsonb_to_recordset`: one statement per table however many rows, with every value typed by the
/// column list. The JSON keys are the table's column names. Unique impressions and anomalies take both
/// from their column lists (``UniqueImpressionsRow/columns``, ``AnomalyFinding/columns``).
extension ReportRunStore {
    static func insert(runID: Int64, _ rows: [UniqueImpressionsRow]) -> PostgresQuery {
        UniqueImpressionsRow.columns.insertStatement(into: UniqueImpressionsRow.storedColumns.objectName, runID: runID, rows: rows)
    }

    static func insert(runID: Int64, _ findings: [AnomalyFinding]) -> PostgresQuery {
        AnomalyFinding.columns.insertStatement(into: AnomalyFinding.storedColumns.objectName, runID: runID, rows: findings)
    }

    static func insert(runID: Int64, _ records: [ControlReportRecord]) -> PostgresQuery {
        """
        insert into cardinal.report_control
            (run_id, position, app_name, campaign_id, conversion_event, window_length, as_of, variant_id, control,
             users, converters, rate, exposed_users, users_in_several_arms, difference, difference_ci95_lower,
             difference_ci95_upper, relative_lift, relative_lift_ci95_lower, relative_lift_ci95_upper, z,
             p_value, p_value_holm, confidence, chance_to_beat_control, srm_chi2, srm_df, srm_p_value,
             srm_mismatch, srm_skipped, srm_split_source, always_valid_difference_ci95_lower,
             always_valid_difference_ci95_upper, always_valid_lift_ci95_lower, always_valid_lift_ci95_upper,
             always_valid_p_value, always_valid_p_value_holm, significance, significance_source, significant, mde,
             mde_lift)
        select \(runID), r.position, r.app_name, r.campaign_id, r.conversion_event,
               make_interval(days => r.window_seconds / 86400, secs => r.window_seconds % 86400), r.as_of,
               r.variant_id, r.control, r.users, r.converters, r.rate, r.exposed_users, r.users_in_several_arms,
               r.difference, r.difference_ci95_lower, r.difference_ci95_upper, r.relative_lift,
               r.relative_lift_ci95_lower, r.relative_lift_ci95_upper, r.z, r.p_value, r.p_value_holm,
               r.confidence, r.chance_to_beat_control, r.srm_chi2, r.srm_df, r.srm_p_value, r.srm_mismatch,
               r.srm_skipped, r.srm_split_source, r.always_valid_difference_ci95_lower,
               r.always_valid_difference_ci95_upper, r.always_valid_lift_ci95_lower, r.always_valid_lift_ci95_upper,
               r.always_valid_p_value, r.always_valid_p_value_holm, r.significance, r.significance_source,
               r.significant, r.mde, r.mde_lift
        from jsonb_to_recordset(\(json(records))::jsonb) as r (
            position integer, app_name text, campaign_id text, conversion_event text, window_seconds integer,
            as_of timestamptz, variant_id text, control boolean, users bigint, converters bigint,
            rate double precision, exposed_users bigint, users_in_several_arms bigint,
            difference double precision, difference_ci95_lower double precision,
            difference_ci95_upper double precision, relative_lift double precision,
            relative_lift_ci95_lower double precision, relative_lift_ci95_upper double precision,
            z double precision, p_value double precision, p_value_holm double precision,
            confidence double precision, chance_to_beat_control double precision, srm_chi2 double precision,
            srm_df integer, srm_p_value double precision, srm_mismatch boolean, srm_skipped text,
            srm_split_source text, always_valid_difference_ci95_lower double precision,
            always_valid_difference_ci95_upper double precision, always_valid_lift_ci95_lower double precision,
            always_valid_lift_ci95_upper double precision, always_valid_p_value double precision,
            always_valid_p_value_holm double precision, significance text, significance_source text,
            significant boolean, mde double precision, mde_lift double precision)
        """
    }

    private static func json(_ records: [ControlReportRecord]) -> PostgresJSON {
        array(records) { position, record in
            [
                ("position", ReportJSON.integer(position)),
                ("app_name", .string(record.arm.app)),
                ("campaign_id", .string(record.arm.campaignID)),
                ("conversion_event", ReportJSON.string(record.arm.conversionEvent)),
                ("window_seconds", ReportJSON.integer(record.arm.window.seconds)),
                ("as_of", .string(record.asOf.postgresText)),
                ("variant_id", ReportJSON.string(record.arm.variantID)),
                ("control", .bool(record.arm.control)),
                ("users", ReportJSON.integer(record.arm.users)),
                ("converters", ReportJSON.integer(record.arm.converters)),
                ("rate", ReportJSON.number(record.rate)),
                ("exposed_users", ReportJSON.integer(record.arm.exposedUsers)),
                ("users_in_several_arms", ReportJSON.integer(record.arm.usersInSeveralArms)),
                ("difference", ReportJSON.number(record.difference)),
                ("difference_ci95_lower", ReportJSON.number(record.differenceLower)),
                ("difference_ci95_upper", ReportJSON.number(record.differenceUpper)),
                ("relative_lift", ReportJSON.number(record.relativeLift)),
                ("relative_lift_ci95_lower", ReportJSON.number(record.relativeLiftLower)),
                ("relative_lift_ci95_upper", ReportJSON.number(record.relativeLiftUpper)),
                ("z", ReportJSON.number(record.z)),
                ("p_value", ReportJSON.number(record.pValue)),
                ("p_value_holm", ReportJSON.number(record.pValueHolm)),
                ("confidence", ReportJSON.number(record.confidence)),
                ("chance_to_beat_control", ReportJSON.number(record.chanceToBeatControl)),
                ("srm_chi2", ReportJSON.number(record.srmChi2)),
                ("srm_df", ReportJSON.integer(record.srmDegreesOfFreedom)),
                ("srm_p_value", ReportJSON.number(record.srmPValue)),
                ("srm_mismatch", ReportJSON.bool(record.srmMismatch)),
                ("srm_skipped", ReportJSON.string(record.srmSkipped)),
                ("srm_split_source", ReportJSON.string(record.srmSplitSource?.rawValue)),
                ("always_valid_difference_ci95_lower", ReportJSON.number(record.alwaysValidDifferenceLower)),
                ("always_valid_difference_ci95_upper", ReportJSON.number(record.alwaysValidDifferenceUpper)),
                ("always_valid_lift_ci95_lower", ReportJSON.number(record.alwaysValidLiftLower)),
                ("always_valid_lift_ci95_upper", ReportJSON.number(record.alwaysValidLiftUpper)),
                ("always_valid_p_value", ReportJSON.number(record.alwaysValidPValue)),
                ("always_valid_p_value_holm", ReportJSON.number(record.alwaysValidPValueHolm)),
                ("significance", ReportJSON.string(record.significance?.rawValue)),
                ("significance_source", ReportJSON.string(record.significanceSource?.rawValue)),
                ("significant", ReportJSON.bool(record.significant)),
                ("mde", ReportJSON.number(record.minimumDetectableDifference)),
                ("mde_lift", ReportJSON.number(record.minimumDetectableLift)),
            ]
        }
    }

    /// A JSON array of one object per element; positions count from 1.
    private static func array<Element>(
        _ elements: [Element], _ members: (Int, Element) -> [(String, JSONValue)]
    ) -> PostgresJSON {
        let values = elements.enumerated().map { offset, element in
            ReportJSON.object(members(offset + 1, element))
        }
        return PostgresJSON(text: JSONValue.array(values).compactText)
    }
}
