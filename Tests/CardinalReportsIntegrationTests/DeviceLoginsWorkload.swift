import PostgresClient

/// A bulk load of devices that log in, inserted in one statement with no `ANALYZE` afterwards: each device
/// logs an anonymous impression of content card campaign `campaign` an hour ago and, a minute later, an event
/// of `loginType` under its new user (`user<n>` on `device<n>`); with `converts`, the user also logs a
/// `conversion` conversion a minute after that. By the identity rule every device's history is its user's,
/// so the app has one user per device.
enum DeviceLoginsWorkload {
    /// The campaign of every message event.
    static let campaign = "spring"
    /// The name of the conversions.
    static let conversion = "purchase"

    /// Inserts `devices` devices' events into the app `appID`.
    static func insert(
        into connection: PostgresConnection, appID: Int64, devices: Int, loginType: String, converts: Bool = false
    ) throws {
        try connection.execute(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, campaign_id,
                                         conversion_name)
            select $1, gen_random_uuid(), step.type, step.channel,
                   now() - interval '1 hour' + step.minute * interval '1 minute',
                   case when step.minute > 0 then 'user' || device end, 'device' || device, step.campaign_id,
                   step.conversion_name
            from generate_series(1, $2) as device
            cross join (
                values (0, 'impression', 'content_card', $4, null),
                       (1, $3, 'content_card', $4, null),
                       (2, 'conversion', null, null, $5)
            ) as step (minute, type, channel, campaign_id, conversion_name)
            where step.minute < 2 or $6
            """,
            [appID, devices, loginType, campaign, conversion, converts]
        )
    }
}
