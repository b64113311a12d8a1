/// The push columns of a unique-impressions row, given together: a push row has all of them, a row of
/// another channel none.
public struct PushColumns: Sendable, Equatable {
    /// Direct opens: the push clicks.
    public var directOpens: Int64
    /// Users with a direct open.
    public var uniqueDirectOpens: Int64
    /// Users who opened the app within the influenced-open window after a send, without a direct open.
    public var influencedOpens: Int64
    /// uniqueDirectOpens + influencedOpens; on a row split by button, the whole message's.
    public var totalOpens: Int64
    /// uniqueDirectOpens / unique recipients; `nil` without recipients.
    public var directOpenRate: Double?
    /// totalOpens / unique recipients; `nil` without recipients.
    public var totalOpenRate: Double?
    /// Delivery events: the devices that reported the notification received; on a row split by button, the
    /// whole message's.
    public var deliveries: Int64
    /// deliveries / send events; `nil` without sends.
    public var deliveryRate: Double?

    /// Creates the push columns of a row.
    public init(
        directOpens: Int64, uniqueDirectOpens: Int64, influencedOpens: Int64, totalOpens: Int64,
        directOpenRate: Double?, totalOpenRate: Double?, deliveries: Int64, deliveryRate: Double?
    ) {
        self.directOpens = directOpens
        self.uniqueDirectOpens = uniqueDirectOpens
        self.influencedOpens = influencedOpens
        self.totalOpens = totalOpens
        self.directOpenRate = directOpenRate
        self.totalOpenRate = totalOpenRate
        self.deliveries = deliveries
        self.deliveryRate = deliveryRate
    }
}
