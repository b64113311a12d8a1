/// Lines alike that were counted instead of written: how many, and what made them alike.
struct RepeatSummary: Equatable {
    /// The level, message and fields the lines shared.
    var key: RepeatSummarizer.Key
    /// How many lines were counted after the one written.
    var repeats: Int
}
