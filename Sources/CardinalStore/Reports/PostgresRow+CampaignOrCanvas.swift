import PostgresClient

extension PostgresRow {
    /// The campaign of a row of a report function that reports campaigns and canvases alike (`control_arms`,
    /// `control_arm_conversions`): its `campaign_id`, or for a canvas its `canvas_id`.
    func campaignOrCanvas(_ columns: SQLColumns) throws -> String {
        let campaign = try decode(String?.self, column: columns["campaign_id"])
        guard let id = try campaign ?? decode(String?.self, column: columns["canvas_id"]) else {
            throw ReportDecodingError(
                what: "\(columns.object) row", value: "no campaign_id, no canvas_id", expected: "a campaign or a canvas"
            )
        }
        return id
    }
}
