import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal campaigns …`: the per-campaign settings the reports read.
enum CampaignsCommand {
    static let spec = CommandSpec(
        name: "campaigns",
        abstract: "Set and list campaign report settings: conversion event, window, expected split, time zone.",
        subcommands: [
            CommandSpec(
                name: "set",
                abstract: "Create or change a campaign's report settings; settings not given keep their value.",
                discussion: """
                    The control report counts the conversion event within the window after each user's first \
                    (control) impression. The expected split is checked by the sample ratio test: name the \
                    control arm 'control', variants by their variant_id, and the arm of a campaign whose events \
                    carry no variant_id 'default'. Without a split every arm is expected to be equal.
                    Example: cardinal campaigns set --app shop --campaign spring --conversion purchase \
                    --window 3d --split control=1,v1=1,v2=1
                    """,
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("app", help: "The app the campaign belongs to.", isRequired: true),
                    OptionSpec("campaign", help: "The campaign id, as in its events' campaign_id.", valueName: "id",
                               isRequired: true),
                    OptionSpec("conversion", help: "Primary conversion event name (the name of conversion events).",
                               valueName: "name"),
                    OptionSpec("window", help: "Conversion window: d, h, m, s units, e.g. 3d, 36h, 1d12h; 1s to 30d "
                                   + "(a new campaign gets 3d).", valueName: "duration"),
                    OptionSpec("split", help: "Expected split as arm=weight pairs, e.g. control=1,v1=1.",
                               valueName: "arms"),
                    OptionSpec("timezone", help: "IANA time zone of the campaign's report day (else the app's).",
                               valueName: "zone"),
                    CommonOptions.format,
                ],
                flags: [
                    FlagSpec("clear-conversion", help: "Remove the conversion event."),
                    FlagSpec("clear-split", help: "Remove the expected split (equal shares)."),
                    FlagSpec("clear-timezone", help: "Use the app's time zone again."),
                ]
            ),
            CommandSpec(
                name: "list",
                abstract: "List campaign settings.",
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("app", help: "Only this app's campaigns (default: every app)."),
                    CommonOptions.format,
                ]
            ),
        ]
    )

    static func set(_ context: CommandContext) throws {
        let arguments = context.arguments
        let update = CampaignSettingsUpdate(
            conversionEvent: try change("conversion", clear: "clear-conversion", arguments) { $0 },
            conversionWindow: try change("window", clear: nil, arguments) { try ConversionWindow(parsing: $0) },
            expectedSplit: try change("split", clear: "clear-split", arguments) { try ExpectedSplit(parsing: $0) },
            reportTimeZone: try change("timezone", clear: "clear-timezone", arguments) { $0 }
        )
        let settings = try CampaignSettingsStore(connection: try context.connect())
            .set(app: arguments.option("app") ?? "", campaignID: arguments.option("campaign") ?? "", update)
        context.printListing(listing([settings]))
    }

    static func list(_ context: CommandContext) throws {
        let settings = try CampaignSettingsStore(connection: try context.connect()).list(app: context.arguments.option("app"))
        context.printListing(listing(settings))
    }

    /// What to do with one setting: an option sets it, a `--clear-…` flag resets it, both is a usage error,
    /// and a value that does not parse is a usage error naming the option.
    private static func change<Value>(
        _ option: String, clear flag: String?, _ arguments: ParsedArguments, parse: (String) throws -> Value
    ) throws -> SettingChange<Value> {
        let cleared = flag.map { arguments.flag($0) } ?? false
        guard let text = arguments.option(option) else {
            return cleared ? .reset : .keep
        }
        if cleared, let flag {
            throw arguments.usageError("--\(option) and --\(flag) contradict each other; give one of them")
        }
        do {
            return .set(try parse(text))
        } catch let error as CampaignSettingsError {
            throw arguments.usageError("--\(option): \(error)")
        }
    }

    private static func listing(_ settings: [CampaignSettings]) -> TextTable {
        TextTable(
            header: ["app", "campaign_id", "conversion_event", "window", "expected_split", "report_time_zone",
                     "updated_at"],
            rows: settings.map {
                [$0.app, $0.campaignID, $0.conversionEvent, $0.conversionWindow.description,
                 $0.expectedSplit?.description, $0.reportTimeZone, $0.updatedAt.formatted(.iso8601)]
            }
        )
    }
}
