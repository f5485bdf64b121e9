import Foundation

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
