import Foundation

/// What the dashboards are shown in their tests: one experiment with an integration bug, posted through the
/// real daemon, folded into the report state and stored as a report run by the real `cardinal`, so that every
/// panel of every PostgreSQL dashboard has rows.
///
/// Campaign `spring` of the fixture's app, yesterday from 10:00 UTC: 20 users in each of the arms control, v1
/// and v2. Even users are on iOS with SDK 5.1.0, odd ones on Android with SDK 5.2.0. Every user sees the
/// message once (control users a control impression); every fourth variant user clicks, every fifth
/// dismisses; every third user of each arm buys within the one-hour window, and every fourth bought an hour
/// before the impression (CUPED's covariate, which the run stores with --cuped). Three more Android 5.2.0 users
/// send a v2 dismissal without any impression: the bug the Integration health dashboard must show. One event
/// with an unknown field is rejected.
enum DashboardWorkload {
    static let campaign = "spring"
    static let arms = ["control", "v1", "v2"]
    static let usersPerArm = 20
    static let usersWithoutImpression = 3

    /// 10:00 UTC yesterday.
    static let start: Date = {
        let startOfToday = floor(Date.now.timeIntervalSince1970 / 86_400) * 86_400
        return Date(timeIntervalSince1970: startOfToday - 86_400 + 10 * 3600)
    }()

    /// Every event of the workload, the rejected one last.
    static func events() -> [TestEvent] {
        var events: [TestEvent] = []
        for arm in arms {
            for index in 0..<usersPerArm {
                let user = "\(arm)-\(index)"
                let device = index.isMultiple(of: 2)
                    ? #","platform":"ios","sdk_version":"5.1.0""# : #","platform":"android","sdk_version":"5.2.0""#
                let exposure = arm == "control" ? #","control":true"# : #","variant_id":"\#(arm)""#
                let minute = Double(index)
                events.append(message("impression", user: user, minutes: minute, extra: exposure + device))
                if arm != "control" && index.isMultiple(of: 4) {
                    events.append(message("click", user: user, minutes: minute + 1, extra: exposure + device))
                }
                if arm != "control" && index.isMultiple(of: 5) {
                    events.append(message("dismissal", user: user, minutes: minute + 2, extra: exposure + device))
                }
                if index.isMultiple(of: 3) {
                    events.append(conversion(user: user, minutes: minute + 10))
                }
                if index.isMultiple(of: 4) {
                    events.append(conversion(user: user, minutes: minute - 60))
                }
            }
        }
        for index in 0..<usersWithoutImpression {
            events.append(message("dismissal", user: "ghost-\(index)", minutes: 30,
                                  extra: #","variant_id":"v2","platform":"android","sdk_version":"5.2.0""#))
        }
        events.append(TestEvent(json: #"{"id":"\#(UUID().uuidString)","type":"impression","channel":"banner","# +
            #""time":"\#(EpochMilliseconds.rfc3339(start))","user_id":"x","campaign_id":"\#(campaign)","colour":"red"}"#))
        return events
    }

    /// Posts the events through a daemon of `fixture`, then folds, sets the campaign's conversion and stores a
    /// report run with CUPED with the real `cardinal`.
    static func load(into fixture: IngestFixture) throws {
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let events = events()
        let counts = try fixture.client(of: daemon).ingest(events).counts
        guard counts == .init(accepted: events.count - 1, duplicates: 0, rejected: 1) else {
            throw SetupFailure(description: "the workload was not stored as expected: \(counts)")
        }
        let url = fixture.database.url
        try CardinalCLI.succeed(["state", "fold", "--database-url", url])
        try CardinalCLI.succeed([
            "campaigns", "set", "--app", IngestFixture.appName, "--campaign", campaign, "--conversion", "purchase",
            "--window", "1h", "--split", "control=1,v1=1,v2=1", "--database-url", url,
        ])
        try CardinalCLI.succeed(["report", "run", "--cuped", "--database-url", url])
    }

    private static func message(_ type: String, user: String, minutes: Double, extra: String) -> TestEvent {
        let id = UUID()
        return TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"\(type)","channel":"content_card","campaign_id":"\(campaign)",\
            "time":"\(EpochMilliseconds.rfc3339(start.addingTimeInterval(minutes * 60)))","user_id":"\(user)"\(extra)}
            """)
    }

    private static func conversion(user: String, minutes: Double) -> TestEvent {
        let id = UUID()
        return TestEvent(id: id, json: """
            {"id":"\(id.uuidString)","type":"conversion","name":"purchase",\
            "time":"\(EpochMilliseconds.rfc3339(start.addingTimeInterval(minutes * 60)))","user_id":"\(user)"}
            """)
    }
}
