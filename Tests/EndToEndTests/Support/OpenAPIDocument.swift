import Foundation
import TestSupport

/// docs/openapi.json, parsed, with `$ref`s followed on request.
struct OpenAPIDocument {
    /// A part of the document that is missing or of another shape than the test expects.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    let root: [String: Any]

    /// Reads the document from the repository.
    init() throws {
        let url = TestEnvironment.repositoryRoot.appendingPathComponent("docs/openapi.json")
        guard let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw Missing(description: "\(url.path) is not a JSON object")
        }
        self.root = root
    }

    /// The object at `path` from the root, e.g. `["components", "schemas", "Event"]`, with `$ref`s followed.
    func object(_ path: String...) throws -> [String: Any] {
        try object(in: root, path)
    }

    /// The object at `path` below `start`, with `$ref`s followed at every step.
    func object(in start: [String: Any], _ path: [String]) throws -> [String: Any] {
        var current = try resolve(start)
        for key in path {
            guard let next = current[key] as? [String: Any] else {
                throw Missing(description: "no object at \(path.joined(separator: "/")) (stopped at \(key))")
            }
            current = try resolve(next)
        }
        return current
    }

    /// `object` itself, or the object its `$ref` (`#/…`) points to.
    func resolve(_ object: [String: Any]) throws -> [String: Any] {
        guard let reference = object["$ref"] as? String else {
            return object
        }
        guard reference.hasPrefix("#/") else {
            throw Missing(description: "only local references are expected, not \(reference)")
        }
        return try self.object(in: root, reference.dropFirst(2).split(separator: "/").map(String.init))
    }

    /// The names of the `properties` of a schema.
    func propertyNames(of schema: [String: Any]) throws -> Set<String> {
        Set(try object(in: schema, ["properties"]).keys)
    }
}
