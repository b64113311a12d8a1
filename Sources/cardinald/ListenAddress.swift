import ArgumentKit

/// Where the daemon listens: `127.0.0.1:8080`, `0.0.0.0:8080` or `[::1]:8080` (the port after the last colon).
struct ListenAddress: Sendable, Equatable {
    var host: String
    var port: UInt16

    /// Reads `host:port`; `nil` without a host or with a port that is not 0–65535.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
              let port = UInt16(text[text.index(after: colon)...])
        else {
            return nil
        }
        self.host = String(text[..<colon])
        self.port = port
    }
}

extension ValueParser where Value == ListenAddress {
    /// `--listen`'s `host:port`.
    static var listenAddress: Self {
        Self(expectation: "expected host:port, such as 127.0.0.1:8080 or 0.0.0.0:8080") { ListenAddress($0) }
    }
}
