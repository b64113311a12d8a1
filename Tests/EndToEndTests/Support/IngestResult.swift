import Foundation

/// The body of a `200` from `POST /v1/events`.
struct IngestResult: Equatable, CustomStringConvertible {
    /// One entry of `errors`.
    struct EventError: Equatable {
        let index: Int
        let id: String?
        let code: String
        let message: String
    }

    /// The three counts of a result.
    struct Counts: Equatable, CustomStringConvertible {
        let accepted: Int
        let duplicates: Int
        let rejected: Int

        /// `count` events stored, nothing else.
        static func accepted(_ count: Int) -> Counts {
            Counts(accepted: count, duplicates: 0, rejected: 0)
        }

        var description: String { "accepted \(accepted), duplicates \(duplicates), rejected \(rejected)" }
    }

    let accepted: Int
    let duplicates: Int
    let rejected: Int
    let errors: [EventError]

    /// The counts alone.
    var counts: Counts { Counts(accepted: accepted, duplicates: duplicates, rejected: rejected) }

    /// Decodes a `200` response; anything else is an error that shows the response.
    init(_ reply: HTTPReply) throws {
        guard reply.status == 200 else {
            throw UnexpectedReply(reply: reply)
        }
        guard let object = try reply.json() as? [String: Any],
              let accepted = object["accepted"] as? Int, let duplicates = object["duplicates"] as? Int,
              let rejected = object["rejected"] as? Int, let errors = object["errors"] as? [[String: Any]]
        else {
            throw UnexpectedReply(reply: reply)
        }
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected
        self.errors = try errors.map { entry in
            guard let index = entry["index"] as? Int, let code = entry["code"] as? String,
                  let message = entry["message"] as? String
            else {
                throw UnexpectedReply(reply: reply)
            }
            return EventError(index: index, id: entry["id"] as? String, code: code, message: message)
        }
    }

    var description: String {
        "\(counts), errors \(errors.map { "\($0.index):\($0.code)" })"
    }
}

/// A request-level error body: `{"error":{"code":"…","message":"…"}}`.
struct ErrorBody: Equatable {
    let code: String
    let message: String

    /// Decodes the body of `reply`, whatever its status.
    init(_ reply: HTTPReply) throws {
        guard let object = try? reply.json() as? [String: Any], object.count == 1,
              let error = object["error"] as? [String: Any], error.count == 2,
              let code = error["code"] as? String, let message = error["message"] as? String
        else {
            throw UnexpectedReply(reply: reply)
        }
        self.code = code
        self.message = message
    }
}

/// A response that is not what the test expected; its description shows it.
struct UnexpectedReply: Error, CustomStringConvertible {
    let reply: HTTPReply

    var description: String { "unexpected response \(reply.status): \(reply.text)" }
}
