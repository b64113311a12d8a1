import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// `cardinal users erase` and `cardinal retention apply` as an operator runs them: the real binaries, events
/// posted through the real daemon, and a second database that never had the erased user to compare with.
@Suite struct ErasureEndToEndTests {
    /// Two hours ago, so that every event lies well inside the accepted window and on one report day or two.
    private static let start = Date.now.addingTimeInterval(-2 * 3600)

    private static func event(_ type: String, user: String, minutes: Double, extra: String = "") -> TestEvent {
        let id = UUID()
        let time = EpochMilliseconds.rfc3339(start.addingTimeInterval(minutes * 60))
        let channel = type == "conversion" ? "" : #","channel":"content_card","campaign_id":"spring""#
        return TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"\(type)","time":"\(time)","user_id":"\(user)","device_id":"phone-\(user)"\
            \(channel)\(extra)}
            """)
    }

    /// Per user: an impression, a click, a dismissal, a purchase; users u1…u4, u1 in control (so its click is
    /// rejected as a control interaction, and counts in the anomalies report).
    private static func events(of user: String) -> [TestEvent] {
        let arm = user == "u1" ? #","control":true"# : #","variant_id":"v1""#
        return [
            event("impression", user: user, minutes: 0, extra: arm),
            event("click", user: user, minutes: 1, extra: arm),
            event("dismissal", user: user, minutes: 2, extra: user == "u1" ? "" : arm),
            event("conversion", user: user, minutes: 30, extra: #","name":"purchase""#),
        ]
    }

    private static let users = ["u1", "u2", "u3", "u4"]

    private func post(_ events: [TestEvent], to fixture: IngestFixture) throws -> IngestResult {
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        return try fixture.client(of: daemon).ingest(events)
    }

    /// The control report's --as-of: one instant for every run, or two runs a second apart print different
    /// as-of times.
    private static let asOf = EpochMilliseconds.rfc3339(.now.addingTimeInterval(86_400))

    /// The three reports as JSON text, over the days the events fall on, at a fixed --as-of.
    private func reports(_ fixture: IngestFixture) throws -> [String] {
        let days = [Self.start, Date.now].map { String(EpochMilliseconds.rfc3339($0).prefix(10)) }
        let range = ["--app", IngestFixture.appName, "--from", days[0], "--to", days[1], "--format", "json",
                     "--database-url", fixture.database.url]
        return try [
            CardinalCLI.succeed(["report", "unique-impressions"] + range),
            CardinalCLI.succeed(["report", "anomalies"] + range),
            CardinalCLI.succeed(["report", "control", "--as-of", Self.asOf,
                                 "--conversion", "purchase", "--window", "1h"] + range),
        ]
    }

    private func count(_ sql: String, in fixture: IngestFixture) throws -> Int64 {
        try fixture.database.connect().query(sql, [])[0].decode(Int64.self, at: 0)
    }

    @Test("users erase makes every report of the real binary equal to that of a database that never had the user")
    func erasedUserLeavesNoTraceInReports() throws {
        let erasing = try IngestFixture()
        let fresh = try IngestFixture()
        let result = try post(Self.users.flatMap(Self.events(of:)), to: erasing)
        #expect(result.counts == IngestResult.Counts(accepted: 15, duplicates: 0, rejected: 1))
        #expect(try post(Self.users.dropFirst().flatMap(Self.events(of:)), to: fresh).counts == .accepted(12))
        #expect(try reports(erasing) != reports(fresh), "u1 shows in the reports before the erasure")

        let erase = try CardinalCLI.run(["users", "erase", "--app", IngestFixture.appName, "--user", "u1",
                                         "--format", "csv", "--database-url", erasing.database.url])

        #expect(erase.exitStatus == 0, "\(erase.standardError)")
        let lines = erase.standardOutput.split(whereSeparator: \.isNewline)
        #expect(lines.first?.hasPrefix("position,kind,erasure_id,events,rejected_events,report_user_state") == true)
        // u1: impression, dismissal, conversion stored; the control click rejected.
        #expect(lines.dropFirst().first?.hasPrefix("1,user,1,3,1,") == true, "\(erase.standardOutput)")
        #expect(erase.standardError.contains("erased 1 user and 0 devices of app \(IngestFixture.appName)"))
        #expect(!erase.standardOutput.contains("u1") && !erase.standardError.contains("u1"))
        #expect(try reports(erasing) == reports(fresh))
        #expect(try count("select count(*) from cardinal.erasures as e where e::text like '%u1%'", in: erasing) == 0)
        #expect(try count("select count(*) from cardinal.erasures", in: erasing) == 1)
    }

    @Test("users erase --dry-run reads ids from standard input, prints the counts and changes nothing")
    func dryRunFromStandardInput() throws {
        let fixture = try IngestFixture()
        _ = try post(Self.users.flatMap(Self.events(of:)), to: fixture)
        let cardinal = try CardinalCLI.binary("cardinal").path
        let shell = URL(fileURLWithPath: "/bin/sh")
        let pipeline = "printf 'u2\\r\\nu3\\n\\n' | '\(cardinal)' users erase --app \(IngestFixture.appName) "
            + "--users-file - --dry-run --format json --database-url '\(fixture.database.url)'"

        let dryRun = try ChildProcess.run(shell, ["-c", pipeline])

        #expect(dryRun.exitStatus == 0, "\(dryRun.standardError)")
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(dryRun.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["position"] as? String } == ["1", "2"])
        #expect(rows.map { $0["events"] as? String } == ["4", "4"])
        #expect(rows.allSatisfy { $0["erasure_id"] is NSNull }, "a dry run writes no audit row")
        #expect(dryRun.standardError.contains("dry run, nothing changed"))
        #expect(try count("select count(*) from cardinal.events", in: fixture) == 15)
        #expect(try count("select count(*) from cardinal.erasures", in: fixture) == 0)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("phone-u2\nphone-u3\n".utf8).write(to: file)
        try CardinalCLI.succeed(["users", "erase", "--app", IngestFixture.appName, "--devices-file", file.path,
                                 "--database-url", fixture.database.url])
        #expect(try count("select count(*) from cardinal.events", in: fixture) == 7)
        #expect(try count("select count(*) from cardinal.erasures where identity_kind = 'device'", in: fixture) == 2)
    }

    @Test("users erase without an id, or of an unknown app, fails with a message and erases nothing")
    func badRequests() throws {
        let fixture = try IngestFixture()
        let noID = try CardinalCLI.run(["users", "erase", "--app", IngestFixture.appName, "--database-url", fixture.database.url])
        let unknownApp = try CardinalCLI.run(["users", "erase", "--app", "nope", "--user", "u1",
                                              "--database-url", fixture.database.url])

        #expect(noID.exitStatus == 64)
        #expect(noID.standardError.hasPrefix("Error: nothing to erase"))
        #expect(unknownApp.exitStatus == 1)
        #expect(unknownApp.standardError.contains(#"level=error msg="users erase failed" cli.command="users erase" error="no app named \"nope\";"#),
                "\(unknownApp.standardError)")
        #expect(try count("select count(*) from cardinal.erasures", in: fixture) == 0)
    }

    @Test("retention apply --dry-run lists what would go; --app deletes only that app's rejected events; apply drops")
    func retentionApply() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_retention")
        defer { database.drop() }
        try CardinalCLI.createApp("shop", databaseURL: database.url)
        try CardinalCLI.createApp("blog", databaseURL: database.url)
        let connection = try database.connect()
        // 0007 made partitions for the last 400 days; with 120 days of retention about ten are expired.
        try connection.executeScript(
            """
            update cardinal.settings set retention_days = 120;
            insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
            select app_id, gen_random_uuid(), 'impression', 'banner', now() - interval '200 days', 'old', 'c'
            from cardinal.apps;
            insert into cardinal.rejected_events (app_id, received_at, event_index, code, message, raw)
            select app_id, now() - interval '130 days', 0, 'bad', 'bad', '{}' from cardinal.apps;
            """
        )
        let retention = { (arguments: [String]) in
            try CardinalCLI.run(["retention", "apply", "--format", "csv", "--database-url", database.url] + arguments)
        }
        let count = { (sql: String) in try connection.query(sql, [])[0].decode(Int64.self, at: 0) }

        let dryRun = try retention(["--dry-run"])
        #expect(dryRun.exitStatus == 0, "\(dryRun.standardError)")
        let listed = dryRun.standardOutput.split(whereSeparator: \.isNewline)
        #expect(listed.first == "kind,target,from,to,rows")
        #expect(listed.filter { $0.hasPrefix("partition,cardinal.events_y") }.count >= 8)
        #expect(listed.filter { $0.hasPrefix("rejected_events,") }.count == 2)
        #expect(try count("select count(*) from cardinal.events") == 2)

        let shopOnly = try retention(["--app", "shop"])
        #expect(shopOnly.exitStatus == 0, "\(shopOnly.standardError)")
        #expect(shopOnly.standardOutput.split(whereSeparator: \.isNewline).dropFirst().map { $0.prefix(21) }
                    == ["rejected_events,shop,"])
        #expect(try count("select count(*) from cardinal.rejected_events") == 1)
        #expect(try count("select count(*) from cardinal.events") == 2)

        let applied = try retention([])
        #expect(applied.exitStatus == 0, "\(applied.standardError)")
        #expect(applied.standardError.contains("deleted 1 rejected events"))
        #expect(try count("select count(*) from cardinal.events") == 0)
        #expect(try count("select count(*) from cardinal.rejected_events") == 0)
        #expect(try retention(["--dry-run"]).standardOutput.split(whereSeparator: \.isNewline).count == 1)
    }
}
