import Foundation
import Synchronization

/// The peak resident memory of a process over a stretch of time: the kernel's own peak (`VmHWM`, reset by
/// writing 5 to `/proc/PID/clear_refs`) and, where that reset is not allowed, the largest `VmRSS` seen by
/// sampling every 10 ms.
final class ResidentMemory: Sendable {
    private let processIdentifier: Int32
    private let sampledPeak = Atomic(0)
    private let sampling = Atomic(false)
    private let resetWorked = Atomic(false)

    init(processIdentifier: Int32) {
        self.processIdentifier = processIdentifier
    }

    /// Bytes resident now.
    var current: Int { field("VmRSS") ?? 0 }

    /// Starts a stretch: resets the peak and samples until ``stop()``.
    func start() {
        resetWorked.store((try? "5".write(toFile: "/proc/\(processIdentifier)/clear_refs", atomically: false, encoding: .utf8)) != nil,
                          ordering: .relaxed)
        sampledPeak.store(current, ordering: .relaxed)
        sampling.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            while sampling.load(ordering: .acquiring) {
                let now = current
                if now > sampledPeak.load(ordering: .relaxed) { sampledPeak.store(now, ordering: .relaxed) }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        thread.start()
    }

    /// Ends the stretch and returns its peak in bytes.
    func stop() -> Int {
        sampling.store(false, ordering: .releasing)
        let sampled = sampledPeak.load(ordering: .relaxed)
        guard resetWorked.load(ordering: .relaxed), let kernelPeak = field("VmHWM") else { return sampled }
        return max(sampled, kernelPeak)
    }

    /// A `kB` field of `/proc/PID/status`, in bytes.
    private func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }
}
