import Foundation

/// One ordering term of a query.
///
/// ```swift
/// let largestFirst = persistence.query(Circle.self).sorted(by: .field("radius", ascending: false))
/// ```
///
/// Terms apply in the order they are added; ``identifier`` always ends the list, so equal values come
/// back in one order.
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
