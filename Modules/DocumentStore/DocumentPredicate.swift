import Foundation

/// A path into a document's JSON: keys and array positions, `"address.city"` or `"tags[0]"`.
///
/// Paths become SQLite JSON paths (`$."address"."city"`) that are written into the SQL text, never
/// values: SQLite's planner uses an index on `json_extract(body, '$."radius"')` only for that exact
/// expression, which a bound parameter would not be. Keys are quoted; a key containing `"` is refused.
public struct Field: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Equatable {
        case key(String)
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

/// How a field compares with a value.
public enum ComparisonOperator: String, Sendable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// A condition on documents' JSON, translated to SQL with every value bound as a parameter.
///
/// Comparisons follow SQLite's rules (see `Docs/DocumentStore.md`, "Queries"): a missing field or JSON
/// `null` compares as SQL `NULL` (so matches no comparison), `true` and `false` are 1 and 0, integers
/// and doubles compare as numbers, any number sorts before any text, text compares by its UTF-8 bytes,
/// and `like` folds ASCII letters only.
///
/// ```swift
/// let big = Field("radius") > 1 && Field("color").in(["red", "blue"]) && !Field("tags").contains("draft")
/// ```
public indirect enum DocumentPredicate: Sendable {
    case comparison(Field, ComparisonOperator, JSON)
    /// The field equals one of the values.
    case isIn(Field, [JSON])
    /// SQL `LIKE`: `%` any run, `_` one character, ASCII letters matched without regard to case.
    case like(Field, String)
    /// The field is an array with an element equal to the value.
    case contains(Field, JSON)
    /// The field is present (its value may be `null`).
    case exists(Field)
    case and([DocumentPredicate])
    case or([DocumentPredicate])
    case not(DocumentPredicate)

    public static func && (lhs: DocumentPredicate, rhs: DocumentPredicate) -> DocumentPredicate { .and([lhs, rhs]) }
    public static func || (lhs: DocumentPredicate, rhs: DocumentPredicate) -> DocumentPredicate { .or([lhs, rhs]) }
    public static prefix func ! (operand: DocumentPredicate) -> DocumentPredicate { .not(operand) }
}

extension Field {
    public static func == (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .equal, rhs.jsonValue) }
    public static func != (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .notEqual, rhs.jsonValue) }
    public static func < (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .less, rhs.jsonValue) }
    public static func <= (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .lessOrEqual, rhs.jsonValue) }
    public static func > (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .greater, rhs.jsonValue) }
    public static func >= (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .greaterOrEqual, rhs.jsonValue) }

    /// The field equals one of `values`.
    public func `in`(_ values: [any JSONRepresentable]) -> DocumentPredicate { .isIn(self, values.map(\.jsonValue)) }
    /// The field matches the SQL `LIKE` pattern.
    public func like(_ pattern: String) -> DocumentPredicate { .like(self, pattern) }
    /// The field is an array containing `value`.
    public func contains(_ value: some JSONRepresentable) -> DocumentPredicate { .contains(self, value.jsonValue) }
    /// The field is present.
    public var exists: DocumentPredicate { .exists(self) }
}

/// One ordering term of a query.
public struct DocumentSort: Sendable {
    enum Key: Sendable {
        case field(Field)
        case identifier
    }

    let key: Key
    let ascending: Bool

    /// By a field (in SQLite's order: missing and `null` first, then numbers, then text).
    public static func field(_ field: Field, ascending: Bool = true) -> DocumentSort {
        DocumentSort(key: .field(field), ascending: ascending)
    }

    /// By identifier (every query ends with it, so results have one order).
    public static let identifier = DocumentSort(key: .identifier, ascending: true)
}
