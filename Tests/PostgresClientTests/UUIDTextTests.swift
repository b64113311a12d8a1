import Foundation
import PostgresClient
import Testing

/// A UUID's text as PostgreSQL's `uuid` type prints and reads it, against Foundation's own formatter and parser.
@Suite struct UUIDTextTests {
    @Test("A UUID prints as Foundation's hyphenated form in lower case and reads back as itself")
    func printsAndReadsBack() throws {
        var ids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                   UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        ids += (0..<1000).map { _ in UUID() }
        for id in ids {
            #expect(id.postgresText == id.uuidString.lowercased())
            #expect(try UUID(postgresText: id.postgresText) == id)
            #expect(try UUID(postgresText: id.uuidString) == id)
        }
    }

    @Test("Text that is not the hyphenated 8-4-4-4-12 form of hexadecimal digits is refused", arguments: [
        "", "0c4f5e4a-6f1b-4c2e-9a3d-5b6c7d8e9f0", "0c4f5e4a-6f1b-4c2e-9a3d-5b6c7d8e9f0a1",
        "0c4f5e4a6f1b-4c2e-9a3d-5b6c7d8e9f0a1", "0c4f5e4a-6f1b-4c2e-9a3d+5b6c7d8e9f0a",
        "0c4f5e4g-6f1b-4c2e-9a3d-5b6c7d8e9f0a", "{c4f5e4a-6f1b-4c2e-9a3d-5b6c7d8e9f0}", "0c4f5e4a-6f1b-4c2e-9a3d-5b6c7d8e9fé",
    ])
    func refusesOtherText(text: String) {
        #expect(throws: PostgresDecodingFailure.self) { try UUID(postgresText: text) }
    }
}
