import PostgresClient

/// A bulk load of devices that log in, inserted in one statement with no `ANALYZE` afterwards: each device
/// logs an anonymous impression of content card campaign `campaign` an hour ago and, a minute later, an event
/// of `loginType` under its new user (`user<n>` on `device<n>`). By the identity rule every device's history
/// is its user's, so the app has one user per device.
enum DeviceLoginsWorkload {
    /// The campaign of every event.
    static let campaign = "spring"

    /// Inserts `devices` devices' two events into the app `appID`.
    static func insert(into connection: PostgresConnection, appID: Int64, devices: Int, loginType: String) throws {
        try connection.execute(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, campaign_id)
            select $1, gen_random_uuid(), case when login = 1 then $3 else 'impression' end, 'content_card',
                   now() - interval '1 hour' + login * interval '1 minute',
                   case when login = 1 then 'user' || device end, 'device' || device, $4
            from generate_series(1, $2) as device, generate_series(0, 1) as login
            """,
            [appID, devices, loginType, campaign]
        )
    }
}
