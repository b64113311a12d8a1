import ArgumentKit
import CardinalStore
import Foundation

/// How Cardinal's option values are read: days, times, conversion windows and expected splits.
extension ValueParser where Value == ReportDate {
    /// A report day, `YYYY-MM-DD`.
    static var reportDate: Self {
        Self(expectation: "expected a date as YYYY-MM-DD") { ReportDate($0) }
    }
}

extension ValueParser where Value == Date {
    /// An RFC 3339 time, with or without a fraction of a second.
    static var rfc3339: Self {
        Self(expectation: "expected an RFC 3339 time such as 2026-11-30T12:00:00Z") { text in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: text) {
                return date
            }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }
    }
}

extension ValueParser where Value == ConversionWindow {
    /// A conversion window such as `3d`, `36h` or `1d12h`, from 1 second to 30 days.
    static var conversionWindow: Self { .campaignSetting(ConversionWindow.init(parsing:)) }
}

extension ValueParser where Value == InfluencedOpenWindow {
    /// An influenced open window such as `12h`, `90m` or `1d12h`, from 1 minute to 7 days.
    static var influencedOpenWindow: Self { .campaignSetting(InfluencedOpenWindow.init(parsing:)) }
}

extension ValueParser where Value == CUPEDWindow {
    /// CUPED's pre-exposure window such as `14d`, `36h` or `1d12h`, from 1 hour to 90 days.
    static var cupedWindow: Self { .campaignSetting(CUPEDWindow.init(parsing:)) }
}

extension ValueParser where Value == ExpectedSplit {
    /// An expected split as `arm=weight` pairs, such as `control=1,v1=1`.
    static var expectedSplit: Self { .campaignSetting(ExpectedSplit.init(parsing:)) }
}

extension ValueParser {
    /// A parser around a campaign setting's own parsing, whose refusal gives the usage error its reason.
    private static func campaignSetting(
        _ parse: @escaping @Sendable (String) throws(CampaignSettingsError) -> Value
    ) -> Self {
        Self { text throws(InvalidArgumentValue) in
            do throws(CampaignSettingsError) {
                return try parse(text)
            } catch {
                throw InvalidArgumentValue(error.reason)
            }
        }
    }
}

extension ValueParser where Value == [String] {
    /// A comma-separated list such as `campaign_id,clicks`, spaces around the names ignored.
    static var commaSeparated: Self {
        Self(expectation: "expected names separated by commas, such as campaign_id,clicks") { text in
            let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return names.isEmpty || names.contains("") ? nil : names
        }
    }
}

extension ValueParser where Value == Double {
    /// A relative lift, as a fraction (`0.1`) or a percentage (`10%`); 0 has nothing to detect.
    static var relativeLift: Self {
        Self(expectation: "expected a lift other than 0, as a fraction (0.1) or a percentage (10%)") { text in
            let percent = text.hasSuffix("%")
            guard let number = Double(percent ? String(text.dropLast()) : text), number.isFinite, number != 0,
                  number > (percent ? -100 : -1)
            else { return nil }
            return percent ? number / 100 : number
        }
    }
}
