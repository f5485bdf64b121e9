import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

/// SQL text for queries and indexes.
enum QuerySQL {
    /// A query's SQL and its bound arguments.
    struct Compiled: Sendable {
        var sql: String
        var arguments: [JSON]

        func bind(_ statement: StoreStatement) {
            for (index, argument) in arguments.enumerated() { statement.bindJSON(argument, at: Int32(index + 1)) }
        }
    }

    /// A SQL string literal, quotes doubled.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    static func kindCondition(_ kinds: [String]) -> String {
        kinds.count == 1 ? "kind = \(literal(kinds[0]))" : "kind IN (\(kinds.map(literal).joined(separator: ", ")))"
    }

    static func extract(_ field: Field) throws(DocumentStoreError) -> String {
        "json_extract(body, \(literal(try field.jsonPath())))"
    }

    static func condition(_ predicate: DocumentPredicate, arguments: inout [JSON]) throws(DocumentStoreError) -> String {
        switch predicate {
        case .comparison(let field, let op, let value):
            arguments.append(value)
            return "\(try extract(field)) \(op.rawValue) ?"
        case .isIn(let field, let values):
            arguments.append(contentsOf: values)
            return "\(try extract(field)) IN (\(values.map { _ in "?" }.joined(separator: ", ")))"
        case .like(let field, let pattern):
            arguments.append(.string(pattern))
            return "\(try extract(field)) LIKE ?"
        case .contains(let field, let value):
            let path = literal(try field.jsonPath())
            arguments.append(value)
            return "(json_type(documents.body, \(path)) = 'array' AND EXISTS (SELECT 1 FROM json_each(documents.body, \(path)) AS element WHERE element.value = ?))"
        case .exists(let field):
            return "json_type(body, \(literal(try field.jsonPath()))) IS NOT NULL"
        case .and(let parts):
            guard !parts.isEmpty else { return "1" }
            return "(" + (try parts.map { part throws(DocumentStoreError) in try condition(part, arguments: &arguments) }).joined(separator: " AND ") + ")"
        case .or(let parts):
            guard !parts.isEmpty else { return "0" }
            return "(" + (try parts.map { part throws(DocumentStoreError) in try condition(part, arguments: &arguments) }).joined(separator: " OR ") + ")"
        case .not(let part):
            return "NOT (\(try condition(part, arguments: &arguments)))"
        }
    }
}
