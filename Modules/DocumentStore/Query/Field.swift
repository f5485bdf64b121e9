import Foundation

/// A path into a document's JSON: keys and array positions, `"address.city"` or `"tags[0]"`.
///
/// Paths become SQLite JSON paths (`$."address"."city"`) that are written into the SQL text, never
/// values: SQLite's planner uses an index on `json_extract(body, '$."radius"')` only for that exact
/// expression, which a bound parameter would not be. Keys are quoted; a key containing `"` is refused.
///
/// A string literal is a field, so queries read as comparisons:
///
/// ```swift
/// let inParis = try persistence.query(Person.self)
///     .where(Field("address.city") == "Paris" && Field("tags[0]") == "vip")
///     .fetch()
/// let literal = Field(components: [.key("a.b")])   // one key with a dot in it
/// ```
public struct Field: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Equatable {
        /// An object's key (any text but `"` and NUL).
        case key(String)
        /// An array position, from 0.
        case index(Int)
    }

    /// The steps, outermost first.
    public let components: [Component]

    /// A path from explicit steps (for keys that contain `.` or `[`).
    public init(components: [Component]) {
        self.components = components
    }

    /// Parses `a.b[2].c`: keys separated by dots, array positions in brackets.
    public init(_ path: String) {
        var components: [Component] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                let key = rest[..<bracket]
                if !key.isEmpty { components.append(.key(String(key))) }
                rest = rest[bracket...]
                while rest.hasPrefix("["), let close = rest.firstIndex(of: "]"),
                      let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0 {
                    components.append(.index(index))
                    rest = rest[rest.index(after: close)...]
                }
                if !rest.isEmpty { components.append(.key(String(rest))) }
            } else {
                components.append(.key(String(rest)))
            }
        }
        self.components = components
    }

    public init(stringLiteral value: String) { self.init(value) }

    public var description: String {
        components.enumerated().map { offset, component in
            switch component {
            case .key(let key): offset == 0 ? key : ".\(key)"
            case .index(let index): "[\(index)]"
            }
        }.joined()
    }

    /// The SQLite JSON path, `$."a"."b"[2]`.
    func jsonPath() throws(DocumentStoreError) -> String {
        var path = "$"
        for component in components {
            switch component {
            case .key(let key):
                guard !key.contains("\"") && !key.contains("\0") else {
                    throw .unsupportedQuery("the key \(key) contains a double quote or NUL, which SQLite's JSON paths cannot name")
                }
                path += ".\"\(key)\""
            case .index(let index):
                path += "[\(index)]"
            }
        }
        return path
    }

    /// The value at this path in `json`, following SQLite's `json_extract` rules.
    public func value(in json: JSON) -> JSON? {
        var current: JSON? = json
        for component in components {
            switch component {
            case .key(let key): current = current?[key]
            case .index(let index): current = current?[index]
            }
        }
        return current
    }
}
