import Foundation
import Glibc
import TestSupport

/// A real Prometheus (Debian's `prometheus` package, 2.42) started by a test as a child process: a temporary
/// configuration scraping `targets` every `scrapeSeconds`, its storage in a temporary folder, its web API on
/// a free port of 127.0.0.1. Nothing needs root. Missing, it is a failed test that says how to install it.
final class PrometheusServer {
    static let executable = URL(fileURLWithPath: "/usr/bin/prometheus")
    static let jobName = "cardinald"

    let port: UInt16
    private let child: ChildProcess
    private let folder: URL

    init(targets: [String], scrapeSeconds: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw SetupFailure(description: """
                \(Self.executable.path) is missing: the dashboard test needs Debian's prometheus package \
                (make deps installs it; or apt-get install prometheus)
                """)
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardinal-prometheus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = folder.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: \(scrapeSeconds)s
              evaluation_interval: \(scrapeSeconds)s
            scrape_configs:
              - job_name: \(Self.jobName)
                metrics_path: /metrics
                static_configs:
                  - targets: [\(targets.map { "\"\($0)\"" }.joined(separator: ", "))]
            """.write(to: configuration, atomically: true, encoding: .utf8)
        // Prometheus cannot be told to pick a port and report it: try random free-looking ports until one binds.
        var lastError = ""
        for _ in 0..<10 {
            let port = UInt16.random(in: 20_000...60_000)
            let child = try ChildProcess(executable: Self.executable, arguments: [
                "--config.file=\(configuration.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=info",
            ])
            if child.standardError.waitForLine(containing: "Server is ready to receive web requests", timeout: .seconds(120)) != nil {
                self.port = port
                self.child = child
                return
            }
            child.send(signal: SIGKILL)
            _ = child.waitForExit(timeout: .seconds(30))
            lastError = child.standardError.text
            guard lastError.contains("address already in use") else {
                break
            }
        }
        try? FileManager.default.removeItem(at: folder)
        throw SetupFailure(description: "prometheus did not start; its standard error:\n\(lastError)")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Stops Prometheus (SIGTERM, then SIGKILL if it lingers).
    func stop() {
        child.stop(grace: .seconds(30))
    }

    /// `GET /api/v1/<endpoint>` with the parameters URL-encoded, through curl (Prometheus answers large
    /// results chunked, which the tests' own HTTP client does not read): the `data` of a successful answer.
    func api(_ endpoint: String, _ parameters: [(String, String)]) throws -> Any {
        let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"),
            ["-sS", "--max-time", "60", "-G"] + parameters.flatMap { ["--data-urlencode", "\($0.0)=\($0.1)"] }
            + ["http://127.0.0.1:\(port)/api/v1/\(endpoint)"])
        guard result.exitStatus == 0,
              let answer = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
              answer["status"] as? String == "success", let data = answer["data"]
        else {
            throw SetupFailure(description: "prometheus /api/v1/\(endpoint) \(parameters) failed: \(result.standardOutput) \(result.standardError)")
        }
        return data
    }

    /// The series of a range query: one entry per series, its labels.
    func rangeQuery(_ expression: String, range: GrafanaTimeRange, stepSeconds: Int) throws -> [[String: String]] {
        let data = try api("query_range", [
            ("query", expression), ("start", String(range.from.timeIntervalSince1970)),
            ("end", String(range.to.timeIntervalSince1970)), ("step", "\(stepSeconds)s"),
        ])
        let result = (data as? [String: Any])?["result"] as? [[String: Any]] ?? []
        return result.map { $0["metric"] as? [String: String] ?? [:] }
    }

    /// Grafana's `label_values(selector, label)`: the values of `label` over the series `selector` matches.
    func labelValues(_ selector: String, _ label: String) throws -> [String] {
        let series = try api("series", [("match[]", selector)]) as? [[String: String]] ?? []
        return Set(series.compactMap { $0[label] }).sorted()
    }
}
