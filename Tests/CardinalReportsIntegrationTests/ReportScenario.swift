import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// A throwaway migrated database with one app, and a compact way to write hand-built events into it through
/// the real `EventWriter`.
///
/// Event times are given as a day number and a UTC clock time, counted from ``baseDay``, a UTC midnight 60 days
/// before today: recent enough for the partitions the migration creates and for the retention check, and the
/// same weekday arithmetic on every run. The app's report time zone is Asia/Tokyo (UTC+9 all year, no daylight
/// saving), so that a report day runs from 15:00 UTC of the day before to 15:00 UTC; the comments of the tests
/// work the numbers out in that zone.
final class ReportScenario {
    /// The app's name.
    static let appName = "shop"
    /// The app's report time zone.
    static let timeZone = "Asia/Tokyo"

    let database: TestDatabase
    let connection: PostgresConnection
    /// The same connection, set up for the report functions.
    let session: ReportSession
    let app: App
    /// Day 0 of the scenario, 00:00 UTC.
    let baseDay: ReportDate
    private let writer: EventWriter

    init() throws {
        database = try TestDatabase.migrated(prefix: "reports")
        do {
            connection = try database.connect()
            session = try ReportSession(connection: connection)
            app = try AppStore(connection: connection).create(name: Self.appName, reportTimeZone: Self.timeZone)
            writer = EventWriter(connection: try database.connect())
        } catch {
            database.drop()
            throw error
        }
        baseDay = ReportDate(utcDayOf: Date()).adding(days: -60)
    }

    /// Drops the database; call it in a `defer` right after creating the scenario.
    func drop() {
        database.drop()
    }

    /// Runs `check` on the events as written (`folded` false: the reports read them as pending), then again after
    /// a fold has taken them into the report state (`folded` true), for a report that must read the same either way.
    func beforeAndAfterFold(_ check: (_ folded: Bool) throws -> Void) throws {
        try check(false)
        #expect(try ReportStateStore(connection: connection).fold() != nil)
        try check(true)
    }

    /// The report day `day` days after ``baseDay``.
    func day(_ day: Int) -> ReportDate {
        baseDay.adding(days: day)
    }

    /// The instant `day` days after ``baseDay`` at `clock` (`HH:MM` or `HH:MM:SS`, UTC).
    func time(_ day: Int, _ clock: String) -> Date {
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        let seconds = (parts.count > 0 ? parts[0] * 3600 : 0) + (parts.count > 1 ? parts[1] * 60 : 0)
            + (parts.count > 2 ? parts[2] : 0)
        return Date(timeIntervalSince1970: Double(baseDay.adding(days: day).daysSinceEpoch * 86_400 + seconds))
    }

    /// A scope of this app over report days `from`…`to` (day numbers).
    func scope(_ from: Int, _ to: Int, campaign: String? = nil, includeTest: Bool = false) -> ReportScope {
        ReportScope(app: Self.appName, campaign: campaign, from: day(from), to: day(to), includeTest: includeTest)
    }

    /// Writes events through the event writer, as the daemon does.
    /// - Returns: for each event whether it was stored (`false` for a duplicate).
    @discardableResult
    func write(_ events: [Event]) throws -> [Bool] {
        try writer.write(
            events: events.map { EventRecord(appID: app.id, event: $0, receivedAt: Date()) }, rejections: []
        )
    }

    /// Stores a rejected event as the daemon would, with its raw JSON.
    func reject(code: String, raw: String) throws {
        try connection.execute(
            """
            insert into cardinal.rejected_events (app_id, received_at, event_index, code, message, raw)
            values ($1, now(), 0, $2, 'rejected by the test', $3)
            """,
            [app.id, code, raw]
        )
    }

    /// Rows in which report `function` (of app, from and to days) and its reference over raw events
    /// (`function`\_reference) disagree, both ways.
    func differencesFromReference(_ function: String, from: Int, to: Int) throws -> Int64 {
        try connection.query(
            """
            select (select count(*) from (select * from cardinal.\(function)($1, $2, $3)
                                          except all
                                          select * from cardinal.\(function)_reference($1, $2, $3)) as a)
                 + (select count(*) from (select * from cardinal.\(function)_reference($1, $2, $3)
                                          except all
                                          select * from cardinal.\(function)($1, $2, $3)) as b)
            """,
            [Self.appName, day(from), day(to)]
        ).first?.decode(Int64.self, at: 0) ?? -1
    }

    /// Sets a campaign's settings.
    func settings(_ campaign: String, _ update: CampaignSettingsUpdate) throws {
        try CampaignSettingsStore(connection: connection).set(app: Self.appName, campaignID: campaign, update)
    }
}

/// A hand-built event with the defaults most scenarios share: campaign `c1`, variant `v1`, content card, iOS,
/// SDK 5.0, app 1.0, and a fresh id.
func event(
    _ type: EventType, _ channel: Channel? = .contentCard, at time: Date, user: String? = nil, device: String? = nil,
    campaign: String? = "c1", variant: String? = "v1", control: Bool = false, session: String? = nil,
    message: String? = nil, placement: String? = nil, button: String? = nil, platform: Platform? = .ios, sdk: String? = "5.0", appVersion: String? = "1.0",
    test: Bool = false, conversion: String? = nil, id: UUID = UUID()
) -> Event {
    Event(
        id: id, type: type, channel: type.isAppLevel ? nil : channel, time: time, userID: user,
        deviceID: device ?? (user == nil ? "anonymous-device" : nil), sessionID: session,
        source: type.isAppLevel ? nil : campaign.map { .campaign($0) }, variantID: type.isAppLevel ? nil : variant,
        control: control, messageID: message, placementID: placement, buttonID: button, platform: platform,
        sdkVersion: sdk, appVersion: appVersion,
        test: test, conversionName: conversion
    )
}

/// A conversion of `name` by `user`, with a value in `currency` when given.
func conversion(_ name: String, at time: Date, user: String, value: Decimal? = nil, currency: String? = nil) -> Event {
    var conversion = event(.conversion, at: time, user: user, conversion: name)
    conversion.value = value
    conversion.currency = currency
    return conversion
}
