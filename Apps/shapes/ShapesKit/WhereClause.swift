import DocumentStore
import Foundation

/// A `--where` condition: `FIELD OP VALUE`, parsed into a typed `DocumentPredicate` (the value is
/// bound as a parameter, never written into SQL).
///
/// OP is one of `=` (or `==`), `!=`, `<`, `<=`, `>`, `>=` and `like`. VALUE is a number, `true`,
/// `false`, `null`, a quoted string (`"..."` or `'...'`), or a bare word taken as a string.
public enum WhereClause {
    /// What is wrong with a condition.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    static let operators: [(String, @Sendable (Field, JSON) -> DocumentPredicate)] = [
        ("<=", { .comparison($0, .lessOrEqual, $1) }), (">=", { .comparison($0, .greaterOrEqual, $1) }),
        ("!=", { .comparison($0, .notEqual, $1) }), ("==", { .comparison($0, .equal, $1) }),
        ("=", { .comparison($0, .equal, $1) }), ("<", { .comparison($0, .less, $1) }), (">", { .comparison($0, .greater, $1) }),
    ]

    /// Parses `text`.
    public static func parse(_ text: String) throws(ParseError) -> DocumentPredicate {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let range = trimmed.range(of: " like ", options: .caseInsensitive) {
            let field = try field(String(trimmed[..<range.lowerBound]), in: text)
            guard case .string(let pattern) = try value(String(trimmed[range.upperBound...]), in: text) else {
                throw ParseError(description: "like needs a text pattern in \"\(text)\"")
            }
            return .like(field, pattern)
        }
        for (symbol, make) in operators {
            guard let range = trimmed.range(of: symbol) else { continue }
            let field = try field(String(trimmed[..<range.lowerBound]), in: text)
            return make(field, try value(String(trimmed[range.upperBound...]), in: text))
        }
        throw ParseError(description: "no operator (=, !=, <, <=, >, >=, like) in \"\(text)\"; write FIELD OP VALUE, e.g. \"radius > 1\"")
    }

    private static func field(_ text: String, in whole: String) throws(ParseError) -> Field {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw ParseError(description: "no field before the operator in \"\(whole)\"") }
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "[" || $0 == "]" }) else {
            throw ParseError(description: "\"\(name)\" is not a field name (letters, digits, _, dots and [n]) in \"\(whole)\"")
        }
        return Field(name)
    }

    private static func value(_ text: String, in whole: String) throws(ParseError) -> JSON {
        let raw = text.trimmingCharacters(in: .whitespaces)
        guard !raw.isEmpty else { throw ParseError(description: "no value after the operator in \"\(whole)\"") }
        if let quote = raw.first, quote == "\"" || quote == "'" {
            guard raw.count >= 2, raw.last == quote else { throw ParseError(description: "unterminated string \(raw) in \"\(whole)\"") }
            return .string(String(raw.dropFirst().dropLast()))
        }
        switch raw {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if let integer = Int64(raw) { return .integer(integer) }
        if let number = Double(raw), number.isFinite { return .double(number) }
        return .string(raw)
    }
}
