/// A minimal self-contained HTML page: a title, optional notes, and sections of tables, with an inline style
/// sheet and no scripts or external resources, so that it can be mailed or published as one file.
public struct HTMLPage: Sendable, Equatable {
    /// A part of the page under its own heading.
    public struct Section: Sendable, Equatable {
        /// The heading, or `nil` for none.
        public var heading: String?
        /// HTML that is already escaped, such as ``TextTable/renderHTMLTable()``.
        public var body: String

        /// Creates a section.
        public init(heading: String?, body: String) {
            self.heading = heading
            self.body = body
        }
    }

    /// The page title and top heading.
    public var title: String
    /// Lines of plain text under the title (escaped when rendered).
    public var notes: [String]
    /// The sections in order.
    public var sections: [Section]

    /// Creates a page.
    public init(title: String, notes: [String] = [], sections: [Section]) {
        self.title = title
        self.notes = notes
        self.sections = sections
    }

    /// The page as an HTML5 document.
    public func render() -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(Self.escape(title))</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
            table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
            th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
            th { background: #f3f3f3; }
            td.number { text-align: right; font-variant-numeric: tabular-nums; }
            p.note { color: #555; margin: 0.2em 0; }
            </style>
            </head>
            <body>
            <h1>\(Self.escape(title))</h1>

            """
        for note in notes {
            html += "<p class=\"note\">\(Self.escape(note))</p>\n"
        }
        for section in sections {
            if let heading = section.heading {
                html += "<h2>\(Self.escape(heading))</h2>\n"
            }
            html += section.body
        }
        return html + "</body>\n</html>\n"
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, safe in element content and quoted attributes.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
