import CardinalStore
import Foundation
import PostgresClient
import Testing

@Suite struct CampaignSettingsStoreTests {
    @Test("Up to four conversion events are kept in order, a fifth or a repeated name is refused, a reset removes all")
    func furtherConversionEvents() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let store = CampaignSettingsStore(connection: scenario.connection)
        let set = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), furtherConversionEvents: .set(["signup", "share", "review"])
        ))
        #expect(set.conversionEvent == "purchase")
        #expect(set.furtherConversionEvents == ["signup", "share", "review"])
        // Changing only the primary keeps the others.
        let primary = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("order")))
        #expect(primary.furtherConversionEvents == ["signup", "share", "review"])
        #expect(try store.list().first?.furtherConversionEvents == ["signup", "share", "review"])
        #expect(throws: CampaignSettingsError.invalidConversionEvents(["a", "b", "c", "d", "e"])) {
            try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
                conversionEvent: .set("a"), furtherConversionEvents: .set(["b", "c", "d", "e"])
            ))
        }
        #expect(throws: CampaignSettingsError.invalidConversionEvents(["a", "a"])) {
            try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
                conversionEvent: .set("a"), furtherConversionEvents: .set(["a"])
            ))
        }
        // Set again, in another order and with one name fewer: the new list replaces the old one.
        let reordered = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
            furtherConversionEvents: .set(["review", "signup"])
        ))
        #expect(reordered.furtherConversionEvents == ["review", "signup"])
        let cleared = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .reset))
        #expect(cleared.conversionEvent == nil)
        #expect(cleared.furtherConversionEvents.isEmpty)
    }

    @Test("The CUPED window is 14 days until set, is kept by other changes and goes back to 14 days on reset")
    func cupedWindow() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let store = CampaignSettingsStore(connection: scenario.connection)
        let created = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        #expect(created.cupedWindow == .standard)
        let set = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
            cupedWindow: .set(try CUPEDWindow(parsing: "7d"))
        ))
        #expect(set.cupedWindow.seconds == 604_800)
        let kept = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("order")))
        #expect(kept.cupedWindow.seconds == 604_800)
        // Stored with a day part and no months, as 0092's check wants.
        let stored = try scenario.connection.query("select cuped_window::text from cardinal.campaign_settings")
        #expect(try stored.first?.decode(String.self, at: 0) == "7 days")
        let reset = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(cupedWindow: .reset))
        #expect(reset.cupedWindow == .standard)
        let null = try scenario.connection.query("select cuped_window is null from cardinal.campaign_settings")
        #expect(try null.first?.decode(Bool.self, at: 0) == true)
    }

    @Test("The influenced open window is 12 hours until set, is kept by other changes and goes back to 12 hours on reset")
    func influencedOpenWindow() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let store = CampaignSettingsStore(connection: scenario.connection)
        let created = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        #expect(created.influencedOpenWindow == .standard)
        let set = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
            influencedOpenWindow: .set(try InfluencedOpenWindow(parsing: "90m"))
        ))
        #expect(set.influencedOpenWindow.seconds == 5_400)
        let kept = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("order")))
        #expect(kept.influencedOpenWindow.seconds == 5_400)
        #expect(try store.list().first?.influencedOpenWindow.seconds == 5_400)
        // Stored with a day part and no months, as 0029's check wants; push_counts reads the column.
        let stored = try scenario.connection.query("select influenced_open_window::text from cardinal.campaign_settings")
        #expect(try stored.first?.decode(String.self, at: 0) == "01:30:00")
        let reset = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(influencedOpenWindow: .reset))
        #expect(reset.influencedOpenWindow == .standard)
        let null = try scenario.connection.query("select influenced_open_window is null from cardinal.campaign_settings")
        #expect(try null.first?.decode(Bool.self, at: 0) == true)
    }

    @Test("The significance rule is unset until set, is kept by other changes, goes back to unset on reset, and the column refuses other rules")
    func significance() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let store = CampaignSettingsStore(connection: scenario.connection)
        let created = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        #expect(created.significance == nil)
        let set = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(significance: .set(.fixed)))
        #expect(set.significance == .fixed)
        let kept = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("order")))
        #expect(kept.significance == .fixed)
        #expect(try store.list().first?.significance == .fixed)
        let reset = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(significance: .reset))
        #expect(reset.significance == nil)
        let null = try scenario.connection.query("select significance is null from cardinal.campaign_settings")
        #expect(try null.first?.decode(Bool.self, at: 0) == true)
        // 0089's CHECK: psql users cannot store a rule the report does not know.
        let refused = #expect(throws: PostgresError.self) {
            try scenario.connection.execute("update cardinal.campaign_settings set significance = 'bayesian'")
        }
        #expect(refused?.sqlState == .checkViolation)
    }

    @Test("Setting a campaign creates it with defaults, later sets change only what they name, resets restore defaults")
    func setKeepAndReset() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let store = CampaignSettingsStore(connection: scenario.connection)
        let created = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        #expect(created.conversionEvent == "purchase")
        #expect(created.conversionWindow == .standard)
        #expect(created.expectedSplit == nil)
        #expect(created.reportTimeZone == nil)

        let split = try ExpectedSplit(parsing: "control=1,v1=3")
        let changed = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
            conversionWindow: .set(try ConversionWindow(parsing: "1d12h")), expectedSplit: .set(split),
            reportTimeZone: .set("Europe/Madrid")
        ))
        #expect(changed.conversionEvent == "purchase")
        #expect(changed.conversionWindow.seconds == 129_600)
        #expect(changed.expectedSplit?.weight(of: "control") == 1)
        #expect(changed.expectedSplit?.weight(of: "v1") == 3)
        #expect(changed.reportTimeZone == "Europe/Madrid")
        // The interval is stored with a day part, as the column's check wants and psql users read it.
        let stored = try scenario.connection.query("select conversion_window::text from cardinal.campaign_settings")
        #expect(try stored.first?.decode(String.self, at: 0) == "1 day 12:00:00")

        let reset = try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(
            conversionEvent: .reset, conversionWindow: .reset, expectedSplit: .reset, reportTimeZone: .reset
        ))
        #expect(reset.conversionEvent == nil)
        #expect(reset.conversionWindow == .standard)
        #expect(reset.expectedSplit == nil)
        #expect(reset.reportTimeZone == nil)
        #expect(try store.list().map(\.campaignID) == ["c1"])
        #expect(try store.list(app: "other").isEmpty)
    }

    @Test("Unknown time zones, bad conversion names and unknown apps are refused with a message")
    func refusals() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let store = CampaignSettingsStore(connection: scenario.connection)
        #expect(throws: CampaignSettingsError.invalidTimeZone("UTC+3")) {
            try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(reportTimeZone: .set("UTC+3")))
        }
        #expect(throws: CampaignSettingsError.invalidConversionEvent("$purchase")) {
            try store.set(app: "shop", campaignID: "c1", CampaignSettingsUpdate(conversionEvent: .set("$purchase")))
        }
        #expect(throws: StoreError.appNotFound("nope")) {
            try store.set(app: "nope", campaignID: "c1", CampaignSettingsUpdate())
        }
        #expect(try store.list().isEmpty)
    }
}
