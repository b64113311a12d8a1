import Testing
@testable import CardinalCore

@Suite struct UnknownFieldTests {
    @Test("An unknown field is rejected and a typo within edit distance 2 gets a suggestion")
    func typoSuggestion() throws {
        let rejection = try #require(Fixture.rejected(.impression.without("campaign_id").with("campain_id", #""camp-1""#)))
        #expect(rejection.code == .unknownField)
        #expect(rejection.message == #"unknown field "campain_id"; did you mean "campaign_id"?"#)
    }

    @Test("camelCase and upper-case spellings suggest the snake_case field",
          arguments: [("userId", "user_id"), ("campaignID", "campaign_id"), ("CanvasStepId", "canvas_step_id"),
                      ("SDK_VERSION", "sdk_version"), ("tim", "time"), ("devise_id", "device_id")])
    func spellingSuggestions(name: String, suggestion: String) throws {
        let rejection = try #require(Fixture.rejected(.impression.with(name, "1")))
        #expect(rejection.message == "unknown field \"\(name)\"; did you mean \"\(suggestion)\"?")
    }

    @Test("An unknown field far from every known name gets no suggestion")
    func noSuggestion() throws {
        let rejection = try #require(Fixture.rejected(.impression.with("revenue", "5")))
        #expect(rejection.message == #"unknown field "revenue""#)
    }

    @Test("An unknown field is reported before the failures it may explain")
    func unknownFieldFirst() throws {
        // Without the typo the event would also lack a message source; the typo is the real cause.
        let rejection = try #require(Fixture.rejected(.impression.without("campaign_id").with("campaing_id", #""c""#)))
        #expect(rejection.code == .unknownField)
    }

    @Test("A very long unknown name is cut short in the message")
    func longUnknownName() throws {
        let name = String(repeating: "z", count: 10_000)
        let rejection = try #require(Fixture.rejected(.impression.with(name, "1")))
        #expect(rejection.message.count < 100)
    }

    @Test("Every field is found by its wire name and nothing else is")
    func wireNames() {
        for field in EventField.allCases {
            #expect(EventField(wireName: field.rawValue) == field)
        }
        for name in ["", "ID", "typ", "types", "canvas_step_idx", "user-id", "properties "] {
            #expect(EventField(wireName: name) == nil, "\(name)")
        }
    }

    @Test("Edit distance counts insertions, deletions and substitutions")
    func editDistance() {
        func distance(_ a: String, _ b: String) -> Int {
            FieldNameSuggestion.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
        }
        #expect(distance("campain_id", "campaign_id") == 1)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("", "url") == 3)
        #expect(distance("url", "url") == 0)
    }
}
