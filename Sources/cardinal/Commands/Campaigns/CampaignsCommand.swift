import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal campaigns …`: the per-campaign settings the reports read.
enum CampaignsCommand {
    static let tree = CommandTree.group(
        "campaigns",
        abstract: "Set and list campaign report settings: conversion events, windows, expected split, time zone, "
            + "significance rule.",
        subcommands: [.command(CampaignsSetCommand.self), .command(CampaignsListCommand.self)]
    )

    /// The settings as a listing, one row per campaign.
    static func listing(_ settings: [CampaignSettings]) -> TextTable {
        TextTable(
            header: ["app", "campaign_id", "conversion_event", "window", "expected_split", "report_time_zone",
                     "updated_at", "conversion_events", "influenced_open_window", "significance", "cuped_window"],
            rows: settings.map {
                [$0.app, $0.campaignID, $0.conversionEvent, $0.conversionWindow.description,
                 $0.expectedSplit?.description, $0.reportTimeZone, $0.updatedAt.formatted(.iso8601),
                 ([$0.conversionEvent].compactMap(\.self) + $0.furtherConversionEvents).joined(separator: ","),
                 $0.influencedOpenWindow.description, ($0.significance ?? .standard).rawValue,
                 $0.cupedWindow.description]
            }
        )
    }
}
