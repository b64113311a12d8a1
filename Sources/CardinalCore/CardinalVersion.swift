/// The version of Cardinal's executables, printed by `cardinal --version` and `cardinald --version`.
///
/// This is the one place the number lives; a release changes it here and tags the commit `v<current>`.
public enum CardinalVersion {
    /// The version as `major.minor.patch`, following Semantic Versioning.
    public static let current = "0.1.0"
}
