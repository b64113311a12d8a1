import CardinalStore
import Testing

@Suite struct SettingsParsingTests {
    @Test("Windows are whole numbers with units, largest first, between 1 second and 30 days")
    func windows() throws {
        #expect(try ConversionWindow(parsing: "3d").seconds == 259_200)
        #expect(try ConversionWindow(parsing: "36h").seconds == 129_600)
        #expect(try ConversionWindow(parsing: "1d12h").seconds == 129_600)
        #expect(try ConversionWindow(parsing: "90m").seconds == 5_400)
        #expect(try ConversionWindow(parsing: "1s").seconds == 1)
        #expect(try ConversionWindow(parsing: "30d").seconds == 2_592_000)
        for text in ["", "3", "d", "0s", "31d", "30d1s", "12h1d", "3 d", "3days", "-1d", "1.5d", "3d3d"] {
            #expect(throws: CampaignSettingsError.invalidWindow(text), "\(text)") {
                try ConversionWindow(parsing: text)
            }
        }
    }

    @Test("A window prints in its shortest unit form and as days for the JSON output")
    func windowDescriptions() throws {
        #expect(try ConversionWindow(parsing: "36h").description == "1d12h")
        #expect(try ConversionWindow(parsing: "90s").description == "1m30s")
        #expect(try ConversionWindow(parsing: "36h").days == 1.5)
        #expect(try ConversionWindow(parsing: "3d").postgresText == "3 days 0 seconds")
    }

    @Test("An influenced open window is written like a conversion window, between 1 minute and 7 days")
    func influencedOpenWindows() throws {
        #expect(try InfluencedOpenWindow(parsing: "12h").seconds == 43_200)
        #expect(try InfluencedOpenWindow(parsing: "1m").seconds == 60)
        #expect(try InfluencedOpenWindow(parsing: "7d").seconds == 604_800)
        #expect(try InfluencedOpenWindow(parsing: "90m").description == "1h30m")
        #expect(InfluencedOpenWindow.standard.description == "12h")
        #expect(try InfluencedOpenWindow(parsing: "1d12h").postgresText == "1 days 43200 seconds")
        for text in ["", "12", "59s", "7d1s", "8d", "12h1d", "twelve hours"] {
            #expect(throws: CampaignSettingsError.invalidInfluencedOpenWindow(text), "\(text)") {
                try InfluencedOpenWindow(parsing: text)
            }
        }
    }

    @Test("A CUPED window is written like a conversion window, between 1 hour and 90 days")
    func cupedWindows() throws {
        #expect(try CUPEDWindow(parsing: "14d").seconds == 1_209_600)
        #expect(try CUPEDWindow(parsing: "1h").seconds == 3_600)
        #expect(try CUPEDWindow(parsing: "90d").seconds == 7_776_000)
        #expect(CUPEDWindow.standard.description == "14d")
        #expect(try CUPEDWindow(parsing: "36h").days == 1.5)
        for text in ["", "14", "59m", "90d1s", "91d", "two weeks"] {
            #expect(throws: CampaignSettingsError.invalidCUPEDWindow(text), "\(text)") {
                try CUPEDWindow(parsing: text)
            }
        }
    }

    @Test("A split is arm=weight pairs with positive weights and distinct names")
    func splits() throws {
        let split = try ExpectedSplit(parsing: "control=1, v1=2.5,v2=1")
        #expect(split.arms.map(\.name) == ["control", "v1", "v2"])
        #expect(split.arms.map(\.weight) == [1, 2.5, 1])
        #expect(split.description == "control=1,v1=2.5,v2=1")
        #expect(split.jsonText == #"{"control":1,"v1":2.5,"v2":1}"#)
        for text in ["", "control", "control=", "control=0", "control=-1", "control=1,control=1", "=1",
                     "control=nan", "control=inf", "a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1,j=1"] {
            #expect(throws: CampaignSettingsError.self, "\(text)") {
                try ExpectedSplit(parsing: text)
            }
        }
    }

    @Test("A stored split is read back from PostgreSQL's jsonb text")
    func splitFromJSON() throws {
        let split = try ExpectedSplit(jsonText: #"{"v1": 3, "v0": 1, "control": 1}"#)
        #expect(split.description == "control=1,v0=1,v1=3")
        #expect(split.weight(of: "control") == 1)
        #expect(split.weight(of: "v1") == 3)
        #expect(split.weight(of: "v2") == nil)
        #expect(throws: CampaignSettingsError.self) { try ExpectedSplit(jsonText: #"{"v1": "3"}"#) }
        #expect(throws: CampaignSettingsError.self) { try ExpectedSplit(jsonText: "[1]") }
    }

    @Test("Report dates parse only real days as YYYY-MM-DD and count days across months and leap years")
    func reportDates() throws {
        let leap = try #require(ReportDate("2028-02-29"))
        #expect(leap.adding(days: 1).description == "2028-03-01")
        #expect(ReportDate("2027-02-29") == nil)
        #expect(ReportDate("2026-13-01") == nil)
        #expect(ReportDate("2026-1-01") == nil)
        #expect(ReportDate("20260101") == nil)
        #expect(ReportDate("1970-01-01")?.daysSinceEpoch == 0)
        #expect(ReportDate("2026-11-30")?.adding(days: -30).description == "2026-10-31")
        #expect(try #require(ReportDate("2026-11-30")) > leap.adding(days: -800))
    }
}
