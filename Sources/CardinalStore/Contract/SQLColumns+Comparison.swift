extension SQLColumns {
    /// What differs between the declared columns and `actual`, the columns PostgreSQL reports for ``object``:
    /// one sentence a difference, naming the object and the column; empty when they agree. Columns Swift does not
    /// declare are a difference only when the declaration is ``complete``.
    public func mismatches(against actual: [SQLColumn]) -> [String] {
        var found: [String] = []
        for column in actual {
            guard let declared = columns.first(where: { $0.name == column.name }) else {
                guard complete else { continue }
                found.append("\(object): column \"\(column.name)\" in SQL is not declared in Swift")
                continue
            }
            if declared.type != column.type {
                found.append(
                    "\(object): column \"\(column.name)\" is \(column.type) in SQL, Swift declares \(declared.type)"
                )
            }
        }
        for column in columns where !actual.contains(where: { $0.name == column.name }) {
            found.append("\(object): Swift declares \"\(column.name)\", SQL has no such column")
        }
        if found.isEmpty && ordered && complete && actual.map(\.name) != columns.map(\.name) {
            found.append(
                "\(object): columns are in the order \(actual.map(\.name).joined(separator: ", ")) in SQL, "
                    + "Swift declares \(columns.map(\.name).joined(separator: ", "))"
            )
        }
        return found
    }
}
