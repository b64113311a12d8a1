import CardinalCore
import Foundation
public import PostgresClient

/// Sets and lists the rows of `cardinal.campaign_settings`, which the report functions read.
public struct CampaignSettingsStore {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Creates or changes the settings of a campaign of `app`.
    /// - Returns: the settings as stored.
    /// - Throws: ``CampaignSettingsError`` for an invalid campaign id, conversion event or time zone;
    ///   `StoreError.appNotFound` via ``AppStore/find(name:)``; `PostgresError` from the server.
    @discardableResult
    public func set(app: String, campaignID: String, _ update: CampaignSettingsUpdate) throws -> CampaignSettings {
        guard (1...255).contains(campaignID.unicodeScalars.count) else {
            throw CampaignSettingsError.invalidCampaignID(campaignID)
        }
        let further = update.furtherConversionEvents.newValue ?? []
        for name in [update.conversionEvent.newValue].compactMap(\.self) + further
        where !(1...255).contains(name.unicodeScalars.count) || name.hasPrefix("$") {
            throw CampaignSettingsError.invalidConversionEvent(name)
        }
        let allNames = [update.conversionEvent.newValue].compactMap(\.self) + further
        guard further.count <= 3, Set(allNames).count == allNames.count else {
            throw CampaignSettingsError.invalidConversionEvents(allNames)
        }
        if let zone = update.reportTimeZone.newValue,
           try connection.query("select 1 from pg_timezone_names where name = \(zone)").isEmpty {
            throw CampaignSettingsError.invalidTimeZone(zone)
        }
        let appID = try AppStore(connection: connection).find(name: app).id
        // One transaction: the settings row and its further goals change together, or not at all.
        return try connection.transaction { connection in
            // Each setting comes as a value and a flag saying whether it changes; a new row takes the column
            // default of every setting that is not given (coalesce with the default for the window).
            try connection.execute(
                """
                insert into cardinal.campaign_settings
                    (app_id, campaign_id, conversion_event, conversion_window, expected_split, report_time_zone,
                     influenced_open_window, significance, cuped_window)
                values (\(appID), \(campaignID), \(update.conversionEvent.newValue),
                        coalesce(\(update.conversionWindow.newValue)::interval, interval '3 days'),
                        \(update.expectedSplit.newValue.map { PostgresJSON(text: $0.jsonText) })::jsonb,
                        \(update.reportTimeZone.newValue), \(update.influencedOpenWindow.newValue)::interval,
                        \(update.significance.newValue?.rawValue), \(update.cupedWindow.newValue)::interval)
                on conflict (app_id, campaign_id) do update set
                    conversion_event = case when \(update.conversionEvent.changes) then excluded.conversion_event
                                            else campaign_settings.conversion_event end,
                    conversion_window = case when \(update.conversionWindow.changes) then excluded.conversion_window
                                             else campaign_settings.conversion_window end,
                    expected_split = case when \(update.expectedSplit.changes) then excluded.expected_split
                                          else campaign_settings.expected_split end,
                    report_time_zone = case when \(update.reportTimeZone.changes) then excluded.report_time_zone
                                            else campaign_settings.report_time_zone end,
                    influenced_open_window = case when \(update.influencedOpenWindow.changes)
                                                  then excluded.influenced_open_window
                                                  else campaign_settings.influenced_open_window end,
                    significance = case when \(update.significance.changes) then excluded.significance
                                        else campaign_settings.significance end,
                    cuped_window = case when \(update.cupedWindow.changes) then excluded.cuped_window
                                        else campaign_settings.cuped_window end
                """
            )
            // Resetting the primary conversion event resets the others: they would be a list without its first.
            if update.furtherConversionEvents.changes || update.conversionEvent == .reset {
                try connection.execute(
                    """
                    delete from cardinal.campaign_conversion_events
                    where app_id = \(appID) and campaign_id = \(campaignID)
                    """
                )
                let names = PostgresJSON(
                    text: JSONValue.array((update.conversionEvent == .reset ? [] : further).map { .string($0) })
                        .compactText
                )
                try connection.execute(
                    """
                    insert into cardinal.campaign_conversion_events (app_id, campaign_id, ordinal, conversion_event)
                    select \(appID), \(campaignID), n.ordinal + 1, n.name
                    from jsonb_array_elements_text(\(names)::jsonb) with ordinality as n (name, ordinal)
                    """
                )
            }
            guard let stored = try Self.read(on: connection, app: app, campaignID: campaignID).first else {
                throw ReportDecodingError(
                    what: "campaign settings", value: campaignID, expected: "the row this transaction stored"
                )
            }
            return stored
        }
    }

    /// The settings of every campaign, or of `app`'s campaigns, by app and campaign.
    public func list(app: String? = nil) throws -> [CampaignSettings] {
        try Self.read(on: connection, app: app, campaignID: nil)
    }

    /// The settings of `app`'s campaigns (every app's when nil), of `campaignID` alone when given, by app and
    /// campaign.
    ///
    /// One query, the further conversion events of each campaign as a JSON array beside its settings: a query per
    /// campaign made a report of one campaign of a 50-campaign app wait on 51 round trips.
    private static func read(
        on connection: PostgresConnection, app: String?, campaignID: String?
    ) throws -> [CampaignSettings] {
        let columns = CampaignSettings.sqlColumns
        return try connection.query(
            """
            select \(identifier: "a", App.sqlColumns["name"]) as app_name, \(columns.selectList(qualifiedBy: "s")),
                   extract(epoch from \(identifier: "s", columns["conversion_window"]))::bigint
                       as conversion_window_seconds,
                   extract(epoch from coalesce(\(identifier: "s", columns["influenced_open_window"]),
                                               interval '12 hours'))::bigint as influenced_open_window_seconds,
                   extract(epoch from coalesce(\(identifier: "s", columns["cuped_window"]),
                                               interval '14 days'))::bigint as cuped_window_seconds,
                   coalesce((select jsonb_agg(c.conversion_event order by c.ordinal)
                             from cardinal.campaign_conversion_events as c
                             where c.app_id = s.app_id and c.campaign_id = s.campaign_id), '[]')::text
                       as further_conversion_events
            from \(columns.objectName) as s
            join \(App.sqlColumns.objectName) as a on a.app_id = s.app_id
            where (\(app)::text is null or a.name = \(app))
              and (\(campaignID)::text is null or s.campaign_id = \(campaignID))
            order by a.name, s.campaign_id
            """
        ).map { row in
            var settings = try Self.settings(from: row)
            settings.furtherConversionEvents = try Self.conversionEvents(
                jsonText: try row.decode(String.self, column: "further_conversion_events")
            )
            return settings
        }
    }

    /// `["purchase", "signup"]` as the names in the array's order.
    private static func conversionEvents(jsonText: String) throws -> [String] {
        let malformed = ReportDecodingError(
            what: "further conversion events", value: jsonText, expected: "a JSON array of event names"
        )
        guard case .array(let names) = try? JSONValue.parse(jsonText) else {
            throw malformed
        }
        return try names.map { name in
            guard case .string(let text) = name else {
                throw malformed
            }
            return text
        }
    }

    /// The `significance` column: `nil` (the default), or a rule its CHECK constraint allows.
    private static func significance(from row: PostgresRow) throws -> SignificanceRule? {
        guard let text = try row.decode(String?.self, column: CampaignSettings.sqlColumns["significance"]) else {
            return nil
        }
        guard let rule = SignificanceRule(rawValue: text) else {
            throw ReportDecodingError(what: "significance", value: text, expected: "sequential or fixed")
        }
        return rule
    }

    /// Decodes the app's name and the setting columns, by name.
    private static func settings(from row: PostgresRow) throws -> CampaignSettings {
        let columns = CampaignSettings.sqlColumns
        let seconds = try row.decode(Int.self, column: "conversion_window_seconds")
        guard let window = ConversionWindow(seconds: seconds) else {
            throw ReportDecodingError(
                what: "conversion_window", value: "\(seconds) seconds", expected: "between 1 second and 30 days"
            )
        }
        let influencedSeconds = try row.decode(Int.self, column: "influenced_open_window_seconds")
        guard let influencedOpenWindow = InfluencedOpenWindow(seconds: influencedSeconds) else {
            throw ReportDecodingError(
                what: "influenced_open_window", value: "\(influencedSeconds) seconds",
                expected: "between 1 minute and 7 days"
            )
        }
        let cupedSeconds = try row.decode(Int.self, column: "cuped_window_seconds")
        guard let cupedWindow = CUPEDWindow(seconds: cupedSeconds) else {
            throw ReportDecodingError(
                what: "cuped_window", value: "\(cupedSeconds) seconds", expected: "between 1 hour and 90 days"
            )
        }
        return CampaignSettings(
            app: try row.decode(String.self, column: "app_name"),
            campaignID: try row.decode(String.self, column: columns["campaign_id"]),
            conversionEvent: try row.decode(String?.self, column: columns["conversion_event"]),
            conversionWindow: window,
            expectedSplit: try row.decode(String?.self, column: columns["expected_split"]).map { text in
                try ExpectedSplit(jsonText: text)
            },
            reportTimeZone: try row.decode(String?.self, column: columns["report_time_zone"]),
            updatedAt: try row.decode(Date.self, column: columns["updated_at"]),
            influencedOpenWindow: influencedOpenWindow,
            significance: try significance(from: row), cupedWindow: cupedWindow
        )
    }
}
