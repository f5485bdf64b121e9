import Foundation

/// A `WHERE` clause and its bound values.
struct SQLFragment {
    var sql: String
    var arguments: [StorageValue]
}

/// Translates Foundation's `#Predicate` and `SortDescriptor` into SQL with bound parameters.
///
/// The predicate's expression tree is walked through ``SQLTranslatable``, which the supported
/// `PredicateExpressions` types adopt; anything else is ``StorageError/unsupportedQuery(_:)`` naming the
/// expression type. Supported: `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, comparisons with
/// `nil`, `+ - *` on numbers, `String.contains(_:)`, `String.starts(with:)`, `[values].contains($0.x)`,
/// a `Bool` property on its own, and constants of any ``StorageAttribute`` type.
struct QueryTranslator {
    let schema: EntitySchema

    func whereClause<T>(_ predicate: Predicate<T>) throws(StorageError) -> SQLFragment {
        var builder = SQLBuilder(schema: schema)
        try builder.append(predicate.expression)
        return SQLFragment(sql: builder.sql, arguments: builder.arguments)
    }

    func orderBy<T>(_ descriptors: [SortDescriptor<T>]) throws(StorageError) -> String {
        Self.orderBy(try orderTerms(descriptors), schema: schema)
    }

    /// The columns (property indexes) and directions of `descriptors`.
    func orderTerms<T>(_ descriptors: [SortDescriptor<T>]) throws(StorageError) -> [OrderTerm] {
        var terms: [OrderTerm] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let index = schema.keyPathIndex[keyPath],
                  schema.properties[index].isColumn else {
                throw .unsupportedQuery("a sort descriptor on \(descriptor.keyPath.map { "\($0)" } ?? "a comparator") (sort by a stored attribute of \(schema.name))")
            }
            terms.append(OrderTerm(index: index, ascending: descriptor.order == .forward))
        }
        return terms
    }

    /// The `ORDER BY` list (without the row id that fetches add last) for `terms`.
    static func orderBy(_ terms: [OrderTerm], schema: EntitySchema) -> String {
        terms.map { SQL.quote(schema.properties[$0.index].name) + ($0.ascending ? " ASC" : " DESC") }.joined(separator: ", ")
    }
}

/// One column of a sort: the property's index and its direction.
struct OrderTerm: Equatable {
    let index: Int
    let ascending: Bool
}

/// The SQL text being built, with its arguments.
struct SQLBuilder {
    let schema: EntitySchema
    var sql = ""
    var arguments: [StorageValue] = []

    mutating func append(_ expression: Any) throws(StorageError) {
        guard let translatable = expression as? any SQLTranslatable else {
            throw .unsupportedQuery("\(Self.describe(type(of: expression))) has no SQL translation")
        }
        sql += "("
        try translatable.appendSQL(to: &self)
        sql += ")"
    }

    /// Whether `expression` is a `nil` literal (so `==` becomes `IS NULL`).
    static func isNil(_ expression: Any) -> Bool {
        if expression is any _NilLiteralMarker { return true }
        if let value = expression as? any _ConstantValue, (try? value.constantValue) == .null { return true }
        return false
    }

    /// A short name for an expression type: `PredicateExpressions.Conditional` instead of its generic arguments.
    static func describe(_ type: Any.Type) -> String {
        let full = String(reflecting: type)
        let base = full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
        return base.replacingOccurrences(of: "Foundation.", with: "").replacingOccurrences(of: "FoundationEssentials.", with: "")
    }

    mutating func appendComparison(_ lhs: Any, _ op: String, _ rhs: Any) throws(StorageError) {
        try append(lhs)
        sql += " \(op) "
        try append(rhs)
    }

    mutating func bind(_ value: StorageValue) {
        sql += "?"
        arguments.append(value)
    }
}

/// A `PredicateExpressions` type that has an SQL form.
protocol SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError)
}

protocol _NilLiteralMarker {}
protocol _ConstantValue { var constantValue: StorageValue { get throws(StorageError) } }

extension PredicateExpressions.Variable: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        throw .unsupportedQuery("the object itself (compare one of its properties)")
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        guard root is PredicateExpressions.Variable<Root.Output> else {
            throw .unsupportedQuery("the key path \(keyPath) on a derived value (only properties of the object itself)")
        }
        guard let index = builder.schema.keyPathIndex[keyPath], builder.schema.properties[index].isColumn else {
            throw .unsupportedQuery("the key path \(keyPath) (only stored attributes and to-one relationships of \(builder.schema.name))")
        }
        builder.sql += SQL.quote(builder.schema.properties[index].name)
    }
}

extension PredicateExpressions.Value: SQLTranslatable, _ConstantValue {
    var constantValue: StorageValue {
        get throws(StorageError) {
            if let attribute = value as? any StorageAttribute { return attribute.storageValue }
            if let entity = value as? any StorageEntity {
                let id = entity._$backing.objectID
                guard !id.isTemporary else { throw .unsupportedQuery("an object that was never saved") }
                return .integer(id.rowID)
            }
            throw .unsupportedQuery("a constant of type \(Output.self), which is not a StorageAttribute")
        }
    }

    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        if let values = value as? any Sequence, !(value is String), !(value is Data) {
            var list: [StorageValue] = []
            for element in values {
                guard let attribute = element as? any StorageAttribute else {
                    throw .unsupportedQuery("a list of \(type(of: element)), which is not a StorageAttribute")
                }
                list.append(attribute.storageValue)
            }
            builder.sql += list.isEmpty ? "NULL" : ""
            for (offset, element) in list.enumerated() {
                if offset > 0 { builder.sql += ", " }
                builder.bind(element)
            }
            return
        }
        builder.bind(try constantValue)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable, _NilLiteralMarker {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) { builder.sql += "NULL" }
}

extension PredicateExpressions.Equal: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        try builder.appendComparison(lhs, SQLBuilder.isNil(lhs) || SQLBuilder.isNil(rhs) ? "IS" : "=", rhs)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        try builder.appendComparison(lhs, SQLBuilder.isNil(lhs) || SQLBuilder.isNil(rhs) ? "IS NOT" : "!=", rhs)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        let op = switch self.op {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        }
        try builder.appendComparison(lhs, op, rhs)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) { try builder.appendComparison(lhs, "AND", rhs) }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) { try builder.appendComparison(lhs, "OR", rhs) }
}

extension PredicateExpressions.Negation: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        builder.sql += "NOT "
        try builder.append(wrapped)
    }
}

extension PredicateExpressions.Arithmetic: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        let op = switch self.op {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        }
        try builder.appendComparison(lhs, op, rhs)
    }
}

/// `string.contains(other)`: SQLite's `instr`, which compares bytes exactly, as `String.contains` does
/// for strings in the same normalization.
extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        builder.sql += "instr("
        try builder.append(base)
        builder.sql += ", "
        try builder.append(other)
        builder.sql += ") > 0"
    }
}

/// `string.starts(with: prefix)`.
extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        builder.sql += "substr("
        try builder.append(base)
        builder.sql += ", 1, length("
        try builder.append(prefix)
        builder.sql += ")) = "
        try builder.append(prefix)
    }
}

/// `[a, b].contains($0.x)`: `x IN (a, b)`.
extension PredicateExpressions.SequenceContains: SQLTranslatable {
    func appendSQL(to builder: inout SQLBuilder) throws(StorageError) {
        guard sequence is any _ConstantValue else {
            throw .unsupportedQuery("contains(_:) on \(SQLBuilder.describe(type(of: sequence))) (only on a constant list)")
        }
        try builder.append(element)
        builder.sql += " IN "
        try builder.append(sequence)
    }
}
