import ArgumentKit
import CardinalStore
import Foundation

/// The identities `cardinal users erase` was given, in order: `--user` and `--device` values, then the lines of
/// `--users-file` and `--devices-file` (`-` reads standard input).
enum ErasureTargetList {
    /// Collects the targets from the parsed arguments.
    /// - Throws: `UsageError` when there is none, an id is empty, or both files are standard input; a file that
    ///   cannot be read throws the reading error.
    static func read(from parsed: ParsedCommand<UsersEraseCommand>) throws -> [ErasureTarget] {
        let files = [("users-file", parsed.usersFile, ErasureTarget.Kind.user), ("devices-file", parsed.devicesFile, .device)]
            .compactMap { option, path, kind in path.map { (option, $0, kind) } }
        if files.count == 2 && files.allSatisfy({ $0.1 == "-" }) {
            throw parsed.usageError("--users-file and --devices-file cannot both read standard input")
        }
        var targets = parsed.users.map { ErasureTarget(kind: .user, id: $0) }
            + parsed.devices.map { ErasureTarget(kind: .device, id: $0) }
        for (option, path, kind) in files {
            targets += try lines(of: path, option: option, parsed).map { ErasureTarget(kind: kind, id: $0) }
        }
        if targets.isEmpty {
            throw parsed.usageError("nothing to erase: give --user, --device, --users-file or --devices-file")
        }
        if targets.contains(where: { $0.id.isEmpty }) {
            throw parsed.usageError("an empty id cannot be erased: every id must have at least one character")
        }
        return targets
    }

    /// The lines of a file, or of standard input for `-`: one id per line, exactly as written (ids may contain
    /// spaces), without the line ending (`\n`, `\r\n` or another Unicode line break); empty lines are skipped.
    private static func lines(of path: String, option: String, _ parsed: ParsedCommand<UsersEraseCommand>) throws -> [String] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw FileReadFailure(description: "--\(option) \(path): cannot read it (\(error.localizedDescription))")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw parsed.usageError("--\(option) \(path) is not UTF-8 text")
        }
        // Character.isNewline: a Swift Character holds "\r\n" whole, so splitting on "\n" would keep the "\r".
        return text.split(whereSeparator: \.isNewline).map(String.init)
    }
}

/// A file named on the command line could not be read; the message says which and why.
struct FileReadFailure: Error, CustomStringConvertible {
    let description: String
}
