import CardinalStore
import Foundation

extension HTMLPage {
    /// A page of a report run: the title, the run's scope and as-of time under it, `sections`, and the
    /// definitions last, as the index and every campaign page have them.
    static func runPage(title: String, scope: ReportScope, asOf: Date, sections: [Section]) -> String {
        HTMLPage(
            title: title,
            notes: [ReportText.scopeLine(scope), "Control arms matured as of \(ReportText.timestamp(asOf))."],
            sections: sections + [PageDefinitions.section]
        ).render()
    }
}
