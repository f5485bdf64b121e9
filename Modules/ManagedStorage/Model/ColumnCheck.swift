import Foundation

/// What a column's stored value must be for its property, checked on every row read.
///
/// The attribute types whose decoding depends only on the kind of stored value (text for `String`, a
/// number for `Double` and `Date`, an integer for `Int64`, …) are checked by that kind, inline; the
/// others (ranges of the smaller integers, UUID and URL parsing, raw representable types) call their
/// decoder. A to-one relationship holds a row id or `NULL`.
struct ColumnCheck {
    enum Rule {
        case integer
        case number
        case text
        case bytes
        /// The attribute type's decoder decides.
        case decoder((StorageValue) -> Bool)
    }

    /// The property's index.
    let index: Int
    let rule: Rule
    /// Whether `NULL` is accepted (an optional attribute, or a to-one relationship).
    let acceptsNull: Bool

    /// The check of a to-one relationship's column.
    init(toOne index: Int) {
        self.index = index
        rule = .integer
        acceptsNull = true
    }

    /// The check of an attribute's column.
    init(attribute index: Int, _ info: AttributeInfo) {
        self.index = index
        acceptsNull = info.isOptional
        rule = info.valueRule ?? .decoder(info.accepts)
    }

    /// Whether `value` decodes as the property's type.
    @inline(__always)
    func accepts(_ value: StorageValue) -> Bool {
        switch (rule, value) {
        case (_, .null): acceptsNull || { if case .decoder(let decodes) = rule { decodes(value) } else { false } }()
        case (.integer, .integer), (.number, .integer), (.number, .real), (.text, .text), (.bytes, .blob), (.bytes, .text): true
        case (.decoder(let decodes), _): decodes(value)
        default: false
        }
    }
}
