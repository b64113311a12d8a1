/// The campaign page's "Cumulative lift against control": per variant a lift chart over the range's days,
/// each day the control report as read at its end, with the always-valid 95 % interval as a shaded band that
/// narrows as users accumulate and the fixed-horizon interval as dashed lines for contrast.
enum CumulativeLiftChart {
    /// The section's body: a note on how to read it, then one chart per variant.
    static func html(_ lift: CumulativeLift?) -> String {
        guard let lift, !lift.variants.isEmpty else {
            return "<p>No lift to follow: the campaign needs a conversion event, a control arm and a variant.</p>\n"
        }
        var html = "<p class=\"note\">Each day shows the relative lift over control of the users exposed from the "
            + "range's first day to that day whose conversion window had ended by its end, as the control report "
            + "read then would have. The shaded band is the always-valid 95 % interval: it holds on every day at "
            + "once, so reading the chart daily is safe, and it narrows as users accumulate. The dashed lines are "
            + "the fixed-horizon 95 % interval (Katz), valid for one look fixed in advance only.</p>\n"
        let days = lift.days.map(\.description)
        for variant in lift.variants {
            guard !variant.points.isEmpty else {
                html += "<p>\(HTMLPage.escape(variant.name)): no day yet with matured users in both arms.</p>\n"
                continue
            }
            let points = Dictionary(variant.points.map { ($0.day.description, $0) }, uniquingKeysWith: { first, _ in first })
            let byDay = days.map { points[$0] }
            html += LineChart(
                title: "\(variant.name): cumulative relative lift over control (0 = same as control)",
                days: days,
                series: [LineChart.Series(name: "\(variant.name) lift", values: byDay.map { $0?.lift })],
                bands: [
                    LineChart.Band(name: "always-valid 95 %", series: 0, lower: byDay.map { $0?.alwaysValid?.lower },
                                   upper: byDay.map { $0?.alwaysValid?.upper }, style: .area),
                    LineChart.Band(name: "fixed-horizon 95 %", series: 0, lower: byDay.map { $0?.fixedHorizon?.lower },
                                   upper: byDay.map { $0?.fixedHorizon?.upper }, style: .bounds),
                ],
                scale: .lift
            ).render()
        }
        return html
    }
}
