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
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(title))</title>
            <style>
            \(Self.styleSheet)
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

    /// The inline style sheet: readable from 375 px wide (tables scroll sideways, charts scale), dark text on
    /// white, and a print style without navigation or collapsed details.
    static let styleSheet = """
        body { font-family: system-ui, sans-serif; margin: 1em auto; padding: 0 1em; max-width: 60em; color: #222; }
        table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; display: block; overflow-x: auto; }
        th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
        th { background: #f3f3f3; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        p.note { color: #555; margin: 0.2em 0; }
        figure.chart { margin: 1em 0; }
        figcaption { font-weight: 600; margin-bottom: 0.3em; }
        svg.chart { width: 100%; height: auto; max-width: 40em; display: block; }
        svg.chart text { font-size: 12px; fill: #222; }
        svg.chart .grid { stroke: #ddd; }
        svg.chart .reference { stroke: #222; stroke-dasharray: 4 3; }
        svg.chart .whisker { stroke-width: 2.5; }
        ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; margin: 0.3em 0; }
        .badge.severity-critical { color: #B00020; font-weight: 700; }
        .badge.severity-warning { color: #8A5A00; font-weight: 600; }
        .badge.severity-info { color: #0B5394; }
        tr.severity-critical { background: #FDECEE; }
        tr.severity-warning { background: #FFF6E0; }
        tr.control th { font-style: italic; }
        p.verdict { font-weight: 600; }
        dl.definitions dt { font-weight: 600; margin-top: 0.4em; }
        dl.definitions dd { margin-left: 1em; }
        @media (max-width: 30em) { body { margin: 0.5em auto; font-size: 0.95em; } h1 { font-size: 1.4em; } \
        svg.chart text { font-size: 20px; } }
        @media print { nav, details { display: none; } body { max-width: none; color: #000; } \
        figure.chart, table { break-inside: avoid; } a { color: inherit; text-decoration: none; } }
        """

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
