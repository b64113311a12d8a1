import Foundation
import Testing

/// Every PromQL expression of the ingest dashboard, with its variables and Grafana's intervals substituted as
/// Grafana does, is evaluated by a real Prometheus scraping a real cardinald that has just stored, rejected and
/// refused events, and returns at least one series.
@Suite struct DashboardPromQLTests {
    private static let scrapeSeconds = 1

    @Test("Every PromQL expression of the ingest dashboard returns series from Prometheus scraping a loaded cardinald")
    func everyExpressionReturnsSeries() throws {
        let fixture = try IngestFixture()
        // A rule only the database knows, so that one event is refused by it: the database error series.
        try fixture.database.connect().executeScript("""
            alter table cardinal.events add constraint dashboard_refused_user check (user_id <> 'refused')
            """)
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let target = "127.0.0.1:\(daemon.port)"
        let prometheus = try PrometheusServer(targets: [target], scrapeSeconds: Self.scrapeSeconds)
        defer { prometheus.stop() }
        let loadStarted = Date.now

        let client = fixture.client(of: daemon)
        let stored = TestEvent.impressions(20)
        #expect(try client.ingest(stored).counts == .accepted(20))
        #expect(try client.ingest(stored).counts.duplicates == 20)
        let unknownField = TestEvent(json: #"{"id":"\#(UUID().uuidString)","type":"impression","colour":"red"}"#)
        let refused = try client.ingest([TestEvent.impression(user: "refused"), unknownField])
        #expect(refused.counts == .init(accepted: 0, duplicates: 0, rejected: 2))
        // Enough scrapes after the load for every rate window ($__rate_interval is 4 scrapes).
        try Poll.until("Prometheus to scrape the refusal five times", timeout: .seconds(120), interval: .milliseconds(200)) {
            let range = GrafanaTimeRange(from: Date.now.addingTimeInterval(-1), to: Date.now)
            let series = try prometheus.rangeQuery(
                "count_over_time(cardinal_ingest_database_errors_total[1m]) >= 5", range: range, stepSeconds: 1)
            return series.isEmpty ? nil : true
        }

        let dashboard = try #require(try GrafanaDashboard.all().first { $0.uid == "cardinal-ingest" })
        let jobs = try prometheus.labelValues("cardinal_ingest_database_up", "job")
        #expect(jobs == [PrometheusServer.jobName])
        let instances = try prometheus.labelValues(#"cardinal_ingest_database_up{job=~".*"}"#, "instance")
        #expect(instances == [target])
        let job = try #require(dashboard.variable("job"))
        let instance = try #require(dashboard.variable("instance"))
        let selections: [[GrafanaVariableSelection]] = [
            [.init(variable: job, options: jobs, choice: .all), .init(variable: instance, options: instances, choice: .all)],
            [.init(variable: job, options: jobs, choice: .values(jobs)), .init(variable: instance, options: instances, choice: .values(instances))],
        ]
        let range = GrafanaTimeRange(from: loadStarted.addingTimeInterval(-60), to: Date.now)
        var expressions = 0
        for panel in dashboard.panels {
            for target in panel.targets {
                let expr = try #require(target.expression, "\(panel.title)")
                for variables in selections {
                    let query = GrafanaPromQLQuery.expression(expr, variables: variables, range: range, scrapeSeconds: Self.scrapeSeconds)
                    #expect(!query.expression.contains("$"), "\(panel.title): left unexpanded: \(query.expression)")
                    let series = try prometheus.rangeQuery(query.expression, range: range, stepSeconds: query.stepSeconds)
                    #expect(!series.isEmpty, "\(panel.title): no series for \(query.expression)")
                    expressions += 1
                }
            }
        }
        // Nine panels, twelve expressions (three quantiles of commit latency, mean and p95 batch size), twice.
        #expect(expressions == 24)
    }
}
