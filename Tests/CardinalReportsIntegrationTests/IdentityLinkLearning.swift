import PostgresClient

/// Makes the identity links the next fold would make (0032's fold_identity_links), re-keying the devices they
/// merge, without folding the other unfolded events: the property tests then compare reports that read a mix of
/// folded state and unfolded events, with the logins of those events already merged as the reference merges them.
func learnIdentityLinks(_ connection: PostgresConnection) throws {
    try connection.transaction(isolation: .repeatableRead) { connection in
        _ = try connection.query("select cardinal.fold_identity_links()")
    }
}
