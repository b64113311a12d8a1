@testable import ArgumentKit
import Testing

@Suite struct TextWrapperTests {
    @Test("Words are packed greedily into lines no wider than the width")
    func greedyPacking() {
        #expect(TextWrapper.wrap("aaa bbb ccc ddd", width: 7) == ["aaa bbb", "ccc ddd"])
    }

    @Test("A word wider than a line gets a line of its own and is not split")
    func wideWord() {
        #expect(TextWrapper.wrap("a postgresql://example b", width: 10) == ["a", "postgresql://example", "b"])
    }

    @Test("Line breaks and empty lines in the text are kept")
    func hardBreaks() {
        #expect(TextWrapper.wrap("one\n\ntwo", width: 80) == ["one", "", "two"])
    }

    @Test("An indented line keeps its indent on its wrapped continuation")
    func indentedLines() {
        #expect(TextWrapper.wrap("Kinds:\n  - alpha beta gamma", width: 14) == ["Kinds:", "  - alpha beta", "  gamma"])
    }

    @Test("Packing leaves room for leading columns on the first line and indents the rest")
    func leadingAndIndent() {
        #expect(TextWrapper.pack(["[--a <a>]", "[--b <b>]"], width: 20, leading: 8, indent: 4)
            == ["[--a <a>]", "    [--b <b>]"])
    }
}
