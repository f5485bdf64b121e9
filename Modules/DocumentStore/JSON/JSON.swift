import Foundation

/// A JSON value: what a document's body is made of.
///
/// Numbers keep the difference JSON text makes: `3` is an ``integer(_:)`` and `3.0` a ``double(_:)``,
/// as SQLite's JSON functions see them (an `INTEGER` and a `REAL`). Literals build values directly:
///
/// ```swift
/// let json: JSON = ["side": 3.0, "tags": ["red", "big"], "owner": nil]
/// let side: Double? = "side" <~~ json
/// ```
public enum JSON: Sendable, Hashable {
    /// JSON `null`; a query compares it as SQL `NULL`, as it does a missing field.
    case null
    /// `true` or `false`; SQLite's JSON functions see 1 or 0.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits `Int64`.
    case integer(Int64)
    /// Any other number; always finite (saving NaN or an infinity is
    /// ``DocumentStoreError/invalidValue(identifier:path:reason:)``).
    case double(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSON])
    /// An object; its keys are unordered here and sorted in the canonical text.
    case object([String: JSON])

    /// The value under `key` when this is an object; `nil` otherwise or when there is none.
    public subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }

    /// The value at `index` when this is an array and the index is in range.
    public subscript(index: Int) -> JSON? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The value at a dotted path (`"address.city"`), following objects; the whole key is tried first,
    /// so a key that contains a dot still works.
    public func value(atPath path: String) -> JSON? {
        if let direct = self[path] { return direct }
        guard path.contains(".") else { return nil }
        var current: JSON? = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            current = current?[String(component)]
        }
        return current
    }

    /// The fields when this is an object.
    public var objectValue: [String: JSON]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    /// The canonical text (sorted keys, one number format): what the store keeps and digests.
    public var canonicalText: String { CanonicalJSON.text(self) }

    /// Parses JSON text (RFC 8259; numbers without a fraction or exponent that fit `Int64` are integers).
    ///
    /// - Throws: ``DocumentStoreError/malformedJSON(identifier:offset:reason:)`` with the byte offset.
    public init(parsing text: String, identifier: String? = nil) throws(DocumentStoreError) {
        self = try JSONParser.parse(text, identifier: identifier)
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
                ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
                ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: CustomStringConvertible {
    public var description: String { canonicalText }
}
