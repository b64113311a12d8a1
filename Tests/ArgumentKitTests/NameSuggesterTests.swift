@testable import ArgumentKit
import Testing

@Suite struct NameSuggesterTests {
    @Test("Edit distance counts insertions, deletions and substitutions")
    func editDistance() {
        #expect(NameSuggester.editDistance("kitten", "sitting") == 3)
        #expect(NameSuggester.editDistance("", "abc") == 3)
        #expect(NameSuggester.editDistance("abc", "") == 3)
        #expect(NameSuggester.editDistance("format", "format") == 0)
    }

    @Test("Swapping two neighbouring letters counts as one edit")
    func transposition() {
        #expect(NameSuggester.editDistance("craete", "create") == 1)
        #expect(NameSuggester.editDistance("kyes", "keys") == 1)
    }

    @Test("The closest candidate within a third of its length is suggested")
    func closestCandidate() {
        #expect(NameSuggester.suggestion(for: "verbos", among: ["version", "verbose"]) == "verbose")
        #expect(NameSuggester.suggestion(for: "databse-url", among: ["app", "database-url"]) == "database-url")
    }

    @Test("A short candidate is suggested only for a single edit")
    func shortCandidates() {
        #expect(NameSuggester.suggestion(for: "ap", among: ["app"]) == "app")
        #expect(NameSuggester.suggestion(for: "x", among: ["run"]) == nil)
    }

    @Test("Nothing is suggested when every candidate is far away")
    func farCandidates() {
        #expect(NameSuggester.suggestion(for: "colour", among: ["format", "campaign", "limit"]) == nil)
    }

    @Test("Between equally close candidates the first declared is suggested")
    func tieGoesToFirst() {
        #expect(NameSuggester.suggestion(for: "cat", among: ["cap", "car"]) == "cap")
    }
}
