public import Foundation
public import PostgresClient

/// A database connection set up for the report functions, and all the report layer is given: the report
/// queries, the campaign settings and the stored runs go through it, so that the SQL stays in this module and
/// CardinalReports and the CLI need no connection of their own.
///
/// Not `Sendable`: like the connection it wraps, a session is used by one thread at a time.
public struct ReportSession {
    let connection: PostgresConnection

    /// Sets up `connection` for reports and works on it.
    ///
    /// JIT is turned off for the session: the report functions are costed high enough that PostgreSQL's JIT
    /// compiles them on every call, which took 2.6 s of an 11 s anomalies report over 10 M events and gains
    /// nothing back on queries of this shape. A `SET` clause on the functions themselves would stop them being
    /// inlined, so it is set here, once per session.
    ///
    /// `work_mem` is raised to 64 MB for the same reason: the control and anomaly functions sort each
    /// campaign's users, and at the default 4 MB those sorts spill to disk (control for one campaign of 10 M
    /// events: 1.5 s at 4 MB, 1.0 s at 64 MB, no better at 256 MB). A report session is one connection of a
    /// scheduled job, so the memory is bounded by one query's sorts.
    /// - Parameter connection: A connection that is not inside a transaction (``runs`` commits as it goes).
    /// - Throws: `PostgresError`.
    public init(connection: PostgresConnection) throws {
        try connection.execute("set jit = off")
        try connection.execute("set work_mem = '64MB'")
        self.connection = connection
    }

    /// Opens a connection to the database named by `connectionString` (a libpq connection string or URI) and
    /// sets it up for reports.
    /// - Throws: `PostgresError` when the connection fails.
    public init(connectionString: String) throws {
        try self.init(connection: try PostgresConnection(connectionString: connectionString))
    }

    /// The app called `name`.
    /// - Throws: `StoreError.appNotFound` when there is none: a report of an unknown app would be empty and
    ///   look like a quiet one.
    @discardableResult
    public func requireApp(named name: String) throws -> App {
        try AppStore(connection: connection).find(name: name)
    }

    /// The rows of `cardinal.unique_impressions` (see ``UniqueImpressionsQuery/run(_:by:)``).
    public func uniqueImpressions(
        _ scope: ReportScope, by breakdown: ReportBreakdown? = nil
    ) throws -> [UniqueImpressionsRow] {
        try UniqueImpressionsQuery(connection: connection).run(scope, by: breakdown)
    }

    /// The rows of `cardinal.campaign_conversions` (see ``CampaignConversionsQuery/run(_:)``).
    public func campaignConversions(_ scope: ReportScope) throws -> [CampaignConversionRow] {
        try CampaignConversionsQuery(connection: connection).run(scope)
    }

    /// The findings of `cardinal.anomalies` (see ``AnomaliesQuery/run(_:)``).
    public func anomalies(_ scope: ReportScope) throws -> [AnomalyFinding] {
        try AnomaliesQuery(connection: connection).run(scope)
    }

    /// The findings of one half of `cardinal.anomalies` (see ``AnomaliesQuery/run(_:half:)``).
    public func anomalies(_ scope: ReportScope, half: AnomaliesHalf) throws -> [AnomalyFinding] {
        try AnomaliesQuery(connection: connection).run(scope, half: half)
    }

    /// The arms of `cardinal.control_arms` (see ``ControlArmsQuery/run(_:asOf:conversion:window:)``).
    public func controlArms(
        _ scope: ReportScope, asOf: Date, conversion: String? = nil, window: ConversionWindow? = nil
    ) throws -> [ControlArmRow] {
        try ControlArmsQuery(connection: connection).run(scope, asOf: asOf, conversion: conversion, window: window)
    }

    /// The arms of each further conversion event (see ``ControlArmConversionsQuery/run(_:asOf:window:)``).
    public func controlArmConversions(
        _ scope: ReportScope, asOf: Date, window: ConversionWindow? = nil
    ) throws -> [ControlArmConversionRow] {
        try ControlArmConversionsQuery(connection: connection).run(scope, asOf: asOf, window: window)
    }

    /// CUPED's sums per arm (see ``ControlArmCovariatesQuery/run(_:asOf:conversion:window:)``).
    public func controlArmCovariates(
        _ scope: ReportScope, asOf: Date, conversion: String? = nil, window: ConversionWindow? = nil
    ) throws -> [ControlArmCovariateRow] {
        try ControlArmCovariatesQuery(connection: connection).run(scope, asOf: asOf, conversion: conversion,
                                                                  window: window)
    }

    /// One campaign's arms day by day (see ``ControlArmDaysQuery/run(app:campaign:_:asOf:)``).
    public func controlArmDays(
        app: String, campaign: String, _ scope: ReportScope, asOf: Date
    ) throws -> [ControlArmDayRow] {
        try ControlArmDaysQuery(connection: connection).run(app: app, campaign: campaign, scope, asOf: asOf)
    }

    /// The users sent to per arm of each campaign (see ``SendArmsQuery/run(_:)``).
    public func sendArms(_ scope: ReportScope) throws -> [SendArmRow] {
        try SendArmsQuery(connection: connection).run(scope)
    }

    /// The settings of every campaign, or of `app`'s campaigns.
    public func campaignSettings(app: String? = nil) throws -> [CampaignSettings] {
        try CampaignSettingsStore(connection: connection).list(app: app)
    }

    /// The stored runs of the scheduled report job.
    public var runs: ReportRunStore {
        ReportRunStore(connection: connection)
    }
}
