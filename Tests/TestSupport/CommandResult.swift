/// What a finished command did.
public struct CommandResult: Sendable {
    /// How it ended.
    public let termination: ChildProcess.Termination
    /// Everything it wrote to standard output.
    public let standardOutput: String
    /// Everything it wrote to standard error.
    public let standardError: String

    /// Its exit status, or `nil` when a signal ended it.
    public var exitStatus: Int32? {
        if case let .exited(status) = termination {
            return status
        }
        return nil
    }
}
