public import CardinalStore

extension UniqueImpressionsReport {
    /// The columns of the standard table, in order: what a row is (message source, variant, channel, the
    /// breakdown) and the counts and rates people read first; with ids of a dozen characters a row without a
    /// breakdown takes about 110 columns. The rest are a `--columns` or `--wide` away.
    static let standardColumns = [
        "app", "campaign_id", "canvas_step_id", "variant_id", "channel", "breakdown", "impressions",
        "unique_impressions", "clicks", "click_rate", "unique_click_rate",
    ]

    /// The names `--columns` accepts for a report broken down by `breakdown`, in table order: the breakdown
    /// column goes by the breakdown's name (`day`) and exists only with one.
    public static func columnNames(breakdown: ReportBreakdown?) -> [String] {
        UniqueImpressionsRow.columns.all.compactMap { UniqueImpressionsRow.columns.shownName(of: $0, breakdown: breakdown) }
    }

    /// The columns `selection` shows, with the names they are shown under. The standard selection leaves out
    /// the app when every row is of one app, and a message-source column (campaign or canvas step) no row has.
    func shownColumns(_ selection: TableColumns) -> [(name: String, column: ReportColumn<UniqueImpressionsRow>)] {
        let columns = UniqueImpressionsRow.columns
        let all = columns.all.compactMap { column in
            columns.shownName(of: column, breakdown: breakdown).map { (name: $0, column: column) }
        }
        switch selection {
        case .all:
            return all
        case .named(let names):
            return names.compactMap { name in all.first { $0.name == name } }
        case .standard:
            return all.filter { shown in
                guard Self.standardColumns.contains(shown.column.name) else {
                    return false
                }
                switch shown.column.name {
                case "app": return Set(rows.map(\.app)).count > 1
                case "campaign_id", "canvas_step_id": return rows.contains { CellFormat.cell(shown.column, of: $0, exact: true) != nil }
                default: return true
                }
            }
        }
    }
}
