extension TextTable {
    /// The table as an HTML `<table>` with a header row; numeric columns are right-aligned.
    public func renderHTMLTable() -> String {
        var html = "<table>\n<thead><tr>"
        html += header.map { "<th>\(HTMLPage.escape($0))</th>" }.joined()
        html += "</tr></thead>\n<tbody>\n"
        for row in rows {
            html += "<tr>"
            html += header.indices.map { column in
                let cell = column < row.count ? row[column] ?? "" : ""
                let numeric = !cell.isEmpty && Double(cell) != nil
                return numeric ? "<td class=\"number\">\(HTMLPage.escape(cell))</td>" : "<td>\(HTMLPage.escape(cell))</td>"
            }
            .joined()
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// A whole HTML page holding only this table.
    public func renderHTML(title: String) -> String {
        HTMLPage(title: title, sections: [HTMLPage.Section(heading: nil, body: renderHTMLTable())]).render()
    }
}
