import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal users erase`.
struct UsersEraseCommand: DatabaseCommand, ListingCommand, LoggingCommand {
    static let name = "erase"
    static let abstract = "Delete the events, rejected events and report state of users or devices of an app."
    static let discussion: String? = """
        A user (--user, the app's user_id) loses every event it logged on any device; a device \
        (--device, the device_id) every event logged on it, anonymous or by a user who logged in \
        there. Rejected events go when their raw body names the id. The report state is corrected so \
        that every report reads as if the identity had never existed. Anonymous events a user logged \
        before logging in carry only the device: erase the user's devices too.
        Each identity is erased in a transaction of its own and leaves a row in cardinal.erasures \
        with the counts and a salted hash of the id, never the id. Standard output lists one row per \
        identity, in the order given; standard error the totals.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = RequiredOption("app", help: "The app whose users or devices to erase.")
    let users = RepeatedOption("user", help: "A user_id to erase; repeat for several.", valueName: "id")
    let devices = RepeatedOption("device", help: "A device_id to erase; repeat for several.", valueName: "id")
    let usersFile = Option("users-file", help: "A file of user_ids to erase, one per line ('-': standard input).",
                           valueName: "path")
    let devicesFile = Option("devices-file", help: "A file of device_ids to erase, one per line ('-': standard "
                                 + "input).", valueName: "path")
    let format = CommonOptions.format
    let dryRun = Flag("dry-run", help: "Count what would be removed, change nothing, write no audit row.")
    let logLevel = CommonOptions.logLevel
    let logFormat = CommonOptions.logFormat

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let targets = try ErasureTargetList.read(from: parsed)
        let dryRun = parsed.dryRun
        let log = parsed.commandLog()
        try log.run {
            // The count only: the ids themselves are what is being erased, and never logged.
            log.started(["erase.app": parsed.app, "erase.identities": String(targets.count),
                         "erase.dry_run": String(dryRun)])
            let connection = try parsed.connect()
            let app = try AppStore(connection: connection).find(name: parsed.app)
            let eraser = IdentityEraser(connection: connection)
            let started = ContinuousClock.now
            var records: [(target: ErasureTarget, record: ErasureRecord)] = []
            do {
                for target in targets {
                    log.progress("users erase: \(records.count.formatted()) of \(targets.count.formatted()) identities")
                    records.append((target, try eraser.erase(target, appID: app.id, dryRun: dryRun)))
                }
            } catch {
                if !records.isEmpty && !dryRun {
                    log.summary("incomplete", "users erase: erased \(records.count) of \(targets.count) identities "
                                + "before the failure; run again with the rest (erasing one twice finds nothing the "
                                + "second time)", level: .warning, ["erase.erased": String(records.count)])
                }
                throw error
            }
            parsed.printListing(listing(records))
            log.summary("finished", summary(records, app: app.name, dryRun: dryRun, started: started),
                        ["erase.erased": String(records.count)])
        }
    }

    private static func listing(_ records: [(target: ErasureTarget, record: ErasureRecord)]) -> TextTable {
        TextTable(
            header: ["position", "kind", "erasure_id"] + ErasureRecord.tableNames,
            rows: records.enumerated().map { position, entry in
                [String(position + 1), entry.target.kind.rawValue, entry.record.erasureID.map(String.init)]
                    + entry.record.countsByTable.map { String($0.rows) }
            }
        )
    }

    private static func summary(
        _ records: [(target: ErasureTarget, record: ErasureRecord)], app: String, dryRun: Bool,
        started: ContinuousClock.Instant
    ) -> String {
        let users = records.count { $0.target.kind == .user }
        let devices = records.count - users
        let events = records.reduce(0) { $0 + $1.record.events }
        let rejected = records.reduce(0) { $0 + $1.record.rejectedEvents }
        let state = records.reduce(0) {
            $0 + $1.record.reportUserState + $1.record.reportSessionState + $1.record.reportConversionState
                + $1.record.reportDailyCounts + $1.record.reportGroups
        }
        let who = "\(users) \(users == 1 ? "user" : "users") and \(devices) \(devices == 1 ? "device" : "devices")"
        let what = "\(events.formatted()) events, \(rejected.formatted()) rejected events, "
            + "\(state.formatted()) report state rows"
        let elapsed = String(format: "%.1f s", (ContinuousClock.now - started).seconds)
        if dryRun {
            return "users erase: dry run, nothing changed: erasing \(who) of app \(app) would remove \(what)"
        }
        let audit = records.compactMap(\.record.erasureID)
        let auditRows = audit.count == 1 ? "audit row \(audit[0])" : "audit rows \(audit.min() ?? 0)–\(audit.max() ?? 0)"
        return "users erase: erased \(who) of app \(app) in \(elapsed): \(what) removed; \(auditRows) in cardinal.erasures"
    }
}
