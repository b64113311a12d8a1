/// What every number on the report pages means, one line each (the README's reports section says the same
/// at more length).
enum PageDefinitions {
    /// The definitions as an HTML description list.
    static let html: String = {
        let items: [(String, String)] = [
            ("Impressions", "impression events; control impressions are exposures of the control arm, never impressions."),
            ("Unique daily impressions", "users with an impression that day, summed over the days."),
            ("Clicks, dismissals", "click and dismissal events."),
            ("Unique click / dismissal rate", "users who clicked (dismissed) ÷ users with an impression, with a Wilson 95 % interval."),
            ("Users (experiment)", "users first exposed in the range whose conversion window has elapsed by the as-of time, in one arm only."),
            ("Rate (experiment)", "converters ÷ users of the arm."),
            ("Relative lift", "(variant rate − control rate) ÷ control rate, with Katz's log risk-ratio 95 % interval."),
            ("Difference", "variant rate − control rate, with Newcombe's hybrid score 95 % interval."),
            ("p-value (Holm)", "two-sided pooled z-test, adjusted by Holm's method across the campaign's variants."),
            ("Chance to beat control", "P(variant rate > control rate) under uniform-prior Beta posteriors."),
            ("Sample ratio mismatch", "chi-square test of the arm sizes against the expected split; a mismatch when p < 0.001."),
            ("Severity", "critical distorts the reports (5 % or more of the users involved), warning 1–5 %, info under 1 %."),
        ]
        return "<dl class=\"definitions\">\n" + items.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>\n" }.joined() + "</dl>\n"
    }()

    /// The definitions under their heading.
    static let section = HTMLPage.Section(heading: "Definitions", body: html)
}
