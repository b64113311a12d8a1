/// Ends a command with a chosen exit status after it has printed what it had to, such as 3 when
/// `cardinal report … --fail-on anomalies` found some.
struct CommandExit: Error {
    let code: Int32
}
