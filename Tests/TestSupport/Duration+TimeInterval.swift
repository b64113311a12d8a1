public import Foundation

extension Duration {
    /// The duration in seconds, for Foundation's time intervals.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
