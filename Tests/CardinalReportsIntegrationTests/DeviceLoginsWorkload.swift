@_spi(PositionalParameters) import PostgresClient

/// A bulk load of devices that log in, inserted in one statement with no `ANALYZE` afterwards: each device
/// logs an anonymous impression of content card campaign `campaign` an hour ago and, a minute later, an event
/// of `loginType` under its new user (`user<n>` on `device<n>`); with `converts`, the user also logs a
/// conversion named ``conversion`` a minute after that. By the identity rule every device's history is its user's,
/// so the app has one user per device. ``insertPushCampaign(into:appID:users:)`` then sends those users a push.
enum DeviceLoginsWorkload {
    /// The campaign of every message event.
    static let campaign = "spring"
    /// The name of the conversions.
    static let conversion = "purchase"
    /// The push campaign of ``insertPushCampaign(into:appID:users:)``.
    static let pushCampaign = "blast"

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

    /// Sends push campaign ``pushCampaign`` to the first `users` users half an hour ago, after their logins (so
    /// each is still new at the login): user `n` taps it a minute later when `n` is a multiple of 3, and opens
    /// the app 5 minutes later when `n` is even. An influenced open is an open without a tap: the even `n`
    /// that are not multiples of 3.
    static func insertPushCampaign(into connection: PostgresConnection, appID: Int64, users: Int) throws {
        try connection.execute(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
            select $1, gen_random_uuid(), step.type, step.channel,
                   now() - interval '30 minutes' + step.minute * interval '1 minute', 'user' || n, step.campaign_id
            from generate_series(1, $2) as n
            cross join (
                values (0, 'send', 'push', $3), (1, 'click', 'push', $3), (5, 'session_start', null, null)
            ) as step (minute, type, channel, campaign_id)
            where step.type = 'send' or (step.type = 'click' and n % 3 = 0)
               or (step.type = 'session_start' and n % 2 = 0)
            """,
            [appID, users, pushCampaign]
        )
    }
}
