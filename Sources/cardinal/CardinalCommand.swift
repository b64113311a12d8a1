import ArgumentKit
import CardinalCore

/// The `cardinal` command tree and the function that runs each leaf.
enum CardinalCommand {
    static let spec = CommandSpec(
        name: "cardinal",
        abstract: "Cardinal's command line: schema migrations, apps and ingest keys, reports and their state, erasure and retention.",
        discussion: "Every command reads the database from --database-url or CARDINAL_DATABASE_URL.",
        subcommands: [MigrateCommand.spec, AppsCommand.spec, KeysCommand.spec, CampaignsCommand.spec, ReportCommand.spec,
                      StateCommand.spec, UsersCommand.spec, RetentionCommand.spec],
        version: CardinalVersion.current
    )

    /// The leaf commands by path (without the program name).
    static let handlers: [[String]: @Sendable (CommandContext) throws -> Void] = [
        ["migrate"]: MigrateCommand.run,
        ["apps", "create"]: AppsCommand.create,
        ["apps", "list"]: AppsCommand.list,
        ["apps", "limits"]: AppsCommand.limits,
        ["keys", "create"]: KeysCommand.create,
        ["keys", "list"]: KeysCommand.list,
        ["keys", "revoke"]: KeysCommand.revoke,
        ["campaigns", "set"]: CampaignsCommand.set,
        ["campaigns", "list"]: CampaignsCommand.list,
        ["report", "unique-impressions"]: ReportCommand.uniqueImpressions,
        ["report", "anomalies"]: ReportCommand.anomalies,
        ["report", "control"]: ReportCommand.control,
        ["report", "run"]: ReportCommand.run,
        ["state", "fold"]: StateCommand.fold,
        ["state", "status"]: StateCommand.status,
        ["state", "rebuild"]: StateCommand.rebuild,
        ["users", "erase"]: UsersCommand.erase,
        ["retention", "apply"]: RetentionCommand.apply,
    ]
}
