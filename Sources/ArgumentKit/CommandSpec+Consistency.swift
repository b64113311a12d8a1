/// Checks that a spec tree can be parsed unambiguously; a failure is a programmer error.
extension CommandSpec {
    /// Stops the program if this command or any below it contradicts itself.
    ///
    /// The checks: a group takes no arguments, options or flags; names are kebab-case words without
    /// dashes or `=`; long and short names are unique in a command and leave `--help` and `-h` free;
    /// subcommand names are unique and not `help`; required arguments come before optional ones; a
    /// default is one of the allowed values; only the root has a version, and when it does, no command
    /// of the tree uses the name `--version`.
    ///
    /// - Parameters:
    ///   - path: This command's path from the executable's name, for the failure message.
    ///   - versionReserved: Whether the root has a version, so `--version` is taken; the root passes nothing.
    func checkConsistency(path: [String], versionReserved: Bool? = nil) {
        let location = "in '\(path.joined(separator: " "))'"
        precondition(version == nil || path.count == 1, "only the root command has a version \(location)")
        let versionReserved = versionReserved ?? (version != nil)
        if isGroup {
            precondition(
                arguments.isEmpty && options.isEmpty && flags.isEmpty,
                "a command with subcommands takes no arguments, options or flags \(location)")
        }
        let longNames = options.map(\.name) + flags.map(\.name)
        for name in longNames + arguments.map(\.name) + subcommands.map(\.name) {
            precondition(
                !name.isEmpty && !name.hasPrefix("-") && !name.contains("=") && !name.contains(" "),
                "'\(name)' is not a valid name \(location)")
        }
        precondition(Set(longNames).count == longNames.count, "two options or flags share a name \(location)")
        precondition(!longNames.contains("help"), "'--help' is reserved \(location)")
        precondition(!versionReserved || !longNames.contains("version"), "'--version' is reserved \(location)")
        let shortNames = options.compactMap(\.shortName) + flags.compactMap(\.shortName)
        precondition(Set(shortNames).count == shortNames.count, "two options or flags share a short name \(location)")
        precondition(!shortNames.contains("h"), "'-h' is reserved \(location)")
        let subcommandNames = subcommands.map(\.name)
        precondition(Set(subcommandNames).count == subcommandNames.count, "two subcommands share a name \(location)")
        precondition(!subcommandNames.contains("help"), "the subcommand name 'help' is reserved \(location)")
        let firstOptional = arguments.firstIndex(where: \.isOptional) ?? arguments.endIndex
        precondition(
            arguments[firstOptional...].allSatisfy(\.isOptional),
            "a required argument follows an optional one \(location)")
        for option in options where !option.allowedValues.isEmpty {
            if let defaultValue = option.defaultValue {
                precondition(
                    option.allowedValues.contains(defaultValue),
                    "the default of '--\(option.name)' is not an allowed value \(location)")
            }
        }
        for subcommand in subcommands {
            subcommand.checkConsistency(path: path + [subcommand.name], versionReserved: versionReserved)
        }
    }
}
