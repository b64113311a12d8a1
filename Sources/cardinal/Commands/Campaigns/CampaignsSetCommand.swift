import ArgumentKit
import CardinalStore

/// `cardinal campaigns set`.
struct CampaignsSetCommand: DatabaseCommand, ListingCommand {
    static let name = "set"
    static let abstract = "Create or change a campaign's report settings; settings not given keep their value."
    static let discussion: String? = """
        The control report counts the conversion event within the window after each user's first \
        (control) impression. --conversions sets up to four conversion events, primary first; the \
        unique-impressions report shows conversions and revenue of each, the control report compares \
        the arms on each. The expected split is checked by the sample ratio test: name the \
        control arm 'control', variants by their variant_id, and the arm of a campaign whose events \
        carry no variant_id 'default'. Without a split the check uses the split of the campaign's \
        sends, or is skipped. A canvas's settings are set with its canvas id as --campaign. \
        --influenced-open-window is how long after a push send an app open (session_start) without a \
        direct open counts as an influenced open (unique-impressions' push columns). \
        --significance chooses the p-value that makes a variant significant in the control report \
        and raises variant_worse_than_control for --fail-on (report control --significance \
        overrides it). --cuped-window is how long before a user's first exposure the control report \
        counts the user's conversions of the conversion event, the covariate of its CUPED-adjusted \
        lift.
        Example: cardinal campaigns set --app shop --campaign spring --conversion purchase \
        --window 3d --split control=1,v1=1,v2=1
        """

    let databaseURL = CommonOptions.databaseURL
    let app = RequiredOption("app", help: "The app the campaign belongs to.")
    let campaign = RequiredOption("campaign", help: "The campaign id, as in its events' campaign_id; a canvas id "
                                      + "for the control report of a canvas.", valueName: "id")
    let conversion = Option("conversion", help: "Primary conversion event name (the name of conversion events).",
                            valueName: "name")
    let conversions = Option("conversions", help: "Up to four conversion events, primary first, comma-separated "
                                 + "(replaces them all).", valueName: "names")
    let window = Option("window", help: "Conversion window: d, h, m, s units, e.g. 3d, 36h, 1d12h; 1s to 30d "
                            + "(a new campaign gets 3d).", valueName: "duration", parser: .conversionWindow)
    let influencedOpenWindow = Option(
        "influenced-open-window", help: "How long after a push send an app open counts as an influenced open: "
            + "1m to 7d, e.g. 12h, 90m (default 12h).", valueName: "duration", parser: .influencedOpenWindow
    )
    let cupedWindow = Option(
        "cuped-window", help: "How long before first exposure CUPED counts a user's conversions: 1h to 90d, "
            + "e.g. 14d, 36h (default 14d).", valueName: "duration", parser: .cupedWindow
    )
    let split = Option("split", help: "Expected split as arm=weight pairs, e.g. control=1,v1=1.", valueName: "arms",
                       parser: .expectedSplit)
    let timezone = Option("timezone", help: "IANA time zone of the campaign's report day (else the app's).",
                          valueName: "zone")
    let significance = Option(
        "significance", help: "Which Holm-adjusted p-value below 0.05 makes a variant significant: sequential "
            + "(always-valid, for a report read daily) or fixed (fixed-horizon, one look) (default sequential).",
        valueName: "rule", parser: .oneOf(SignificanceRule.self)
    )
    let format = CommonOptions.format
    let clearConversion = Flag("clear-conversion", help: "Remove the conversion events.")
    let clearSplit = Flag("clear-split", help: "Remove the expected split (equal shares).")
    let clearTimezone = Flag("clear-timezone", help: "Use the app's time zone again.")
    let clearSignificance = Flag("clear-significance", help: "Use the default significance rule again (sequential).")

    static func run(_ parsed: ParsedCommand<Self>) throws {
        var primary = try change(\.conversion, clear: \.clearConversion, parsed)
        var further = primary == .reset ? SettingChange<[String]>.reset : .keep
        if let list = parsed.conversions {
            guard primary == .keep else {
                throw parsed.usageError("--conversions names the primary conversion event too; give it without "
                                        + "--conversion or --clear-conversion")
            }
            let names = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            primary = .set(names[0])
            further = .set(Array(names.dropFirst()))
        }
        let update = CampaignSettingsUpdate(
            conversionEvent: primary,
            conversionWindow: parsed.window.map { .set($0) } ?? .keep,
            expectedSplit: try change(\.split, clear: \.clearSplit, parsed),
            reportTimeZone: try change(\.timezone, clear: \.clearTimezone, parsed),
            furtherConversionEvents: further,
            influencedOpenWindow: parsed.influencedOpenWindow.map { .set($0) } ?? .keep,
            significance: try change(\.significance, clear: \.clearSignificance, parsed),
            cupedWindow: parsed.cupedWindow.map { .set($0) } ?? .keep
        )
        let settings = try CampaignSettingsStore(connection: try parsed.connect())
            .set(app: parsed.app, campaignID: parsed.campaign, update)
        parsed.printListing(CampaignsCommand.listing([settings]))
    }

    /// What to do with one setting: its option sets it, its `--clear-…` flag resets it, both is a usage error.
    private static func change<Value>(
        _ option: KeyPath<Self, Option<Value>>, clear flag: KeyPath<Self, Flag>, _ parsed: ParsedCommand<Self>
    ) throws(UsageError) -> SettingChange<Value> {
        let cleared = parsed[dynamicMember: flag]
        guard let value = parsed[dynamicMember: option] else {
            return cleared ? .reset : .keep
        }
        if cleared {
            let declarations = Self()
            throw parsed.usageError("--\(declarations[keyPath: option].spec.name) and "
                                    + "--\(declarations[keyPath: flag].spec.name) contradict each other; give one of them")
        }
        return .set(value)
    }
}
