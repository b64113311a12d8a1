/// The CLI form of a campaign setting's length of time, shared by the conversion window and the influenced
/// open window: whole numbers with units `d`, `h`, `m`, `s`, largest first (`3d`, `36h`, `1d12h`, `90m`).
enum SettingDuration {
    private static let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// The seconds `text` stands for, or `nil` when it is not in the CLI form (the range is the caller's).
    static func seconds(parsing text: String) -> Int? {
        var remaining = Substring(text)
        var total = 0
        var nextUnit = 0
        while !remaining.isEmpty {
            let digits = remaining.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 7, let count = Int(digits),
                  let unit = remaining.dropFirst(digits.count).first,
                  let index = units[nextUnit...].firstIndex(where: { $0.0 == unit })
            else {
                return nil
            }
            total += count * units[index].1
            nextUnit = index + 1
            remaining = remaining.dropFirst(digits.count + 1)
        }
        return text.isEmpty ? nil : total
    }

    /// The CLI form of `seconds`, largest units first: 129 600 → `1d12h`, 90 → `1m30s`.
    static func text(seconds: Int) -> String {
        var rest = seconds
        var text = ""
        for (unit, size) in units where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }

    /// Days and seconds as PostgreSQL `interval` input (`3 days 0 seconds`), so that the stored interval has
    /// a day part and no month part, as the settings' CHECKs require.
    static func postgresText(seconds: Int) -> String {
        "\(seconds / 86_400) days \(seconds % 86_400) seconds"
    }
}
