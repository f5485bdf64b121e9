import Foundation

/// How a field compares with a value: what `==`, `!=`, `<`, `<=`, `>` and `>=` on a ``Field`` make.
///
/// The raw value is the SQL operator.
///
/// ```swift
/// let predicate = DocumentPredicate.comparison("radius", .greaterOrEqual, 2)   // Field("radius") >= 2
/// ```
public enum ComparisonOperator: String, Sendable {
    /// `=`: the field equals the value.
    case equal = "="
    /// `<>`: the field is present, not `null`, and differs from the value.
    case notEqual = "<>"
    /// `<`: the field sorts before the value.
    case less = "<"
    /// `<=`: the field sorts before the value or equals it.
    case lessOrEqual = "<="
    /// `>`: the field sorts after the value.
    case greater = ">"
    /// `>=`: the field sorts after the value or equals it.
    case greaterOrEqual = ">="
}

/// A condition on documents' JSON, translated to SQL with every value bound as a parameter.
///
/// Comparisons follow SQLite's rules (see <doc:QueriesAndIndexes>): a missing field or JSON
/// `null` compares as SQL `NULL` (so matches no comparison), `true` and `false` are 1 and 0, integers
/// and doubles compare as numbers, any number sorts before any text, text compares by its UTF-8 bytes,
/// and `like` folds ASCII letters only.
///
/// ```swift
/// let big = Field("radius") > 1 && Field("color").in(["red", "blue"]) && !Field("tags").contains("draft")
/// ```
public indirect enum DocumentPredicate: Sendable {
    /// The field compares with the value as the operator says (no match when the field is missing or `null`).
    case comparison(Field, ComparisonOperator, JSON)
    /// The field equals one of the values.
    case isIn(Field, [JSON])
    /// SQL `LIKE`: `%` any run, `_` one character, ASCII letters matched without regard to case.
    case like(Field, String)
    /// The field is an array with an element equal to the value.
    case contains(Field, JSON)
    /// The field is present (its value may be `null`).
    case exists(Field)
    /// Every predicate holds (SQL `AND`; an empty list matches every document).
    case and([DocumentPredicate])
    /// At least one predicate holds (SQL `OR`; an empty list matches none).
    case or([DocumentPredicate])
    /// The predicate does not hold (SQL `NOT`: a comparison with a missing field matches neither it nor its negation).
    case not(DocumentPredicate)

    /// Both predicates hold: `.and([lhs, rhs])`.
    public static func && (lhs: DocumentPredicate, rhs: DocumentPredicate) -> DocumentPredicate { .and([lhs, rhs]) }
    /// Either predicate holds: `.or([lhs, rhs])`.
    public static func || (lhs: DocumentPredicate, rhs: DocumentPredicate) -> DocumentPredicate { .or([lhs, rhs]) }
    /// The predicate does not hold: `.not(operand)`.
    public static prefix func ! (operand: DocumentPredicate) -> DocumentPredicate { .not(operand) }
}

extension Field {
    /// The field equals the value: `Field("color") == "red"`.
    public static func == (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .equal, rhs.jsonValue) }
    /// The field is present, not `null`, and differs from the value.
    public static func != (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .notEqual, rhs.jsonValue) }
    /// The field sorts before the value (numbers before text, text by its UTF-8 bytes).
    public static func < (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .less, rhs.jsonValue) }
    /// The field sorts before the value or equals it.
    public static func <= (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .lessOrEqual, rhs.jsonValue) }
    /// The field sorts after the value: `Field("radius") > 1`.
    public static func > (lhs: Field, rhs: some JSONRepresentable) -> DocumentPredicate { .comparison(lhs, .greater, rhs.jsonValue) }
    /// The field sorts after the value or equals it.
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
