/// Makes new ingest key tokens: `cdl_<key id>_<secret>`, the key id being `ck_` and 12 base-62 characters.
///
/// The key id is public (it is listed and logged); the 32 base-62 characters of the secret carry 190 bits
/// from the system's cryptographic generator (`getrandom` on Linux), so the stored SHA-256 of the whole token
/// cannot be reversed or guessed.
enum IngestKeyToken {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A new key id and the full token that embeds it.
    static func generate() -> (keyID: String, token: String) {
        var generator = SystemRandomNumberGenerator()
        let keyID = "ck_" + String((0..<12).map { _ in alphabet.randomElement(using: &generator)! })
        let secret = String((0..<32).map { _ in alphabet.randomElement(using: &generator)! })
        return (keyID, "cdl_\(keyID)_\(secret)")
    }
}
