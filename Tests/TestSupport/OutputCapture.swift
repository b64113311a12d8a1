import Foundation
import Glibc

/// Collects everything a child process writes to one pipe, on a thread of its own, so that the child never
/// blocks on a full pipe and a test can wait for a line to appear in the output.
public final class OutputCapture {
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var reachedEnd = false

    /// Starts reading the read end of a pipe until end of file, then closes it. The caller must have closed
    /// its own copy of the write end: the child's copy is what keeps the pipe open.
    /// - Parameter descriptor: the read end, owned by the capture from now on.
    init(descriptor: Int32, name: String) {
        let thread = Thread { [self] in
            readUntilEnd(descriptor)
            close(descriptor)
        }
        thread.name = "capture-\(name)"
        thread.start()
    }

    /// Everything read so far, as UTF-8 text.
    public var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits until the output holds a complete line containing `fragment` and returns that line.
    /// - Returns: `nil` when the pipe ended or `timeout` passed without such a line.
    public func waitForLine(containing fragment: String, timeout: Duration) -> String? {
        let giveUp = Date.now.addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            // The last element is an unfinished line (or empty after a final newline).
            if let line = lines.dropLast().first(where: { $0.contains(fragment) }) {
                return String(line)
            }
            if reachedEnd || !condition.wait(until: giveUp) {
                return nil
            }
        }
    }

    /// Waits until the writers closed the pipe, or `timeout` passed.
    /// - Returns: whether the end was reached.
    @discardableResult
    public func waitForEnd(timeout: Duration) -> Bool {
        let giveUp = Date.now.addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !reachedEnd {
            if !condition.wait(until: giveUp) {
                return reachedEnd
            }
        }
        return true
    }

    private func readUntilEnd(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR {
                continue
            }
            condition.lock()
            if count > 0 {
                bytes.append(contentsOf: chunk[..<count])
            } else {
                reachedEnd = true
            }
            condition.broadcast()
            condition.unlock()
            if count <= 0 {
                return
            }
        }
    }
}

// Every stored property but the constant condition is read and written with `condition` locked.
extension OutputCapture: @unchecked Sendable {}
