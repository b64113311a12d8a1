/// Calendar arithmetic on the proleptic Gregorian calendar without Foundation's Calendar, which is far too slow
/// for per-event use. The algorithm is Howard Hinnant's `civil_from_days`.
enum CivilDate {
    /// The year and month (1–12) of a day counted from 1970-01-01.
    static func yearMonth(daysSinceEpoch days: Int) -> (year: Int, month: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month)
    }
}
