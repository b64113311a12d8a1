import CardinalCore
import Foundation

/// The calendar months (UTC) for which this process knows an events partition exists, so that the writer asks
/// the database to create partitions only when a batch reaches a month it has not seen.
struct PartitionCache {
    private var months: Set<Int> = []

    var isEmpty: Bool { months.isEmpty }

    func covers(_ earliest: Date, _ latest: Date) -> Bool {
        Self.months(from: earliest, to: latest).allSatisfy(months.contains)
    }

    mutating func insert(_ earliest: Date, _ latest: Date) {
        months.formUnion(Self.months(from: earliest, to: latest))
    }

    mutating func removeAll() {
        months.removeAll()
    }

    /// Month numbers (year × 12 + month − 1) from the month of `earliest` to that of `latest`.
    private static func months(from earliest: Date, to latest: Date) -> ClosedRange<Int> {
        let first = monthNumber(earliest)
        return first...max(first, monthNumber(latest))
    }

    private static func monthNumber(_ date: Date) -> Int {
        let days = Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let (year, month, _) = CivilDate.date(daysSinceEpoch: days)
        return year * 12 + month - 1
    }
}
