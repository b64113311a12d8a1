/// An amount of money in one currency, as exact decimal text: revenue is never converted between
/// currencies, nor rounded through a `Double`.
public struct CurrencyAmount: Sendable, Equatable {
    /// The ISO 4217 code; `XXX` (ISO 4217's "no currency") for values sent without one.
    public var currency: String
    /// The amount as PostgreSQL's `numeric` prints it, e.g. `9.5` or `1.9000000000000000`.
    public var amount: String

    /// Creates an amount.
    public init(currency: String, amount: String) {
        self.currency = currency
        self.amount = amount
    }
}
