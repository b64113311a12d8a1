/// The currency codes of ISO 4217 that a conversion's `currency` may name.
///
/// The list is Debian's `iso-codes` 4.15 table (`/usr/share/iso-codes/json/iso_4217.json`, 181 codes, with
/// `HRK`, which Croatia left in 2023 but older app versions still send) plus the two codes added since: `ZWG`
/// (Zimbabwe Gold, 2024) and `XCG` (Caribbean guilder, 2025). It includes the funds, metals and `XXX` (no
/// currency), which the revenue reports use for values sent without a currency.
enum ISO4217 {
    /// Whether `code` is one of the codes.
    static func isCurrencyCode(_ code: String) -> Bool {
        codes.contains(code)
    }

    private static let codes: Set<String> = Set("""
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN
        BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD
        FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS
        KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN
        MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR
        SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD
        USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU
        XTS XUA XXX YER ZAR ZMW ZWG ZWL
        """.split(whereSeparator: \.isWhitespace).map(String.init))
}
