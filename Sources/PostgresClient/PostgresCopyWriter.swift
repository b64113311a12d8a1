/// Collects the data of a `COPY … FROM STDIN` and sends it in chunks of about 64 KiB.
///
/// You get one from ``PostgresConnection/copyIn(_:_:)``. See
/// [COPY's text format](https://www.postgresql.org/docs/15/sql-copy.html) ("File Formats").
/// - Warning: use it only inside the `copyIn` body that passed it to you.
public struct PostgresCopyWriter {
    /// The size at which buffered data is sent.
    static let chunkSize = 64 * 1024

    private let connection: PostgresConnection
    private var buffer: [UInt8] = []

    init(connection: PostgresConnection) {
        self.connection = connection
        buffer.reserveCapacity(Self.chunkSize + 4 * 1024)
    }

    /// Appends raw COPY data in the format the `COPY` statement named.
    ///
    /// - Throws: ``PostgresError`` when sending a full chunk fails.
    public mutating func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        try flushIfFull()
    }

    /// Appends one row in COPY's text format: tab-separated fields, `\N` for NULL, and backslash, tab,
    /// newline and carriage return escaped, ending with a newline.
    ///
    /// - Parameter fields: the row's values in column order, as PostgreSQL's text input for each type.
    /// - Throws: ``PostgresError`` when sending a full chunk fails.
    public mutating func writeRow(_ fields: [String?]) throws {
        for (position, field) in fields.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: "\t")) }
            guard let field else {
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(UInt8(ascii: "N"))
                continue
            }
            let bytes = field.utf8
            // Most fields (ids, times, names) hold nothing to escape: one copy instead of a branch per byte.
            guard bytes.contains(where: Self.needsEscape) else {
                buffer.append(contentsOf: bytes)
                continue
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "\t"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "t"))
                case UInt8(ascii: "\n"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "r"))
                default: buffer.append(byte)
                }
            }
        }
        buffer.append(UInt8(ascii: "\n"))
        try flushIfFull()
    }

    /// Whether COPY's text format escapes the byte: backslash, tab, newline, carriage return.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }

    private mutating func flushIfFull() throws {
        if buffer.count >= Self.chunkSize {
            try flush()
        }
    }

    /// Sends everything buffered, in pieces of at most ``chunkSize`` bytes.
    mutating func flush() throws {
        try buffer.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(start + Self.chunkSize, bytes.count)
                try connection.sendCopyData(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                start = end
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable)
extension PostgresCopyWriter: Sendable {}
