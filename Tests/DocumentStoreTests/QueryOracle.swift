import DocumentStore
import Foundation

/// A brute-force evaluation of `DocumentPredicate` and sorts over documents in memory, following
/// SQLite's rules: the oracle the query tests compare the store's SQL against.
///
/// - Values: a missing field and JSON `null` are SQL `NULL`; `true`/`false` are the integers 1/0;
///   arrays and objects are their JSON text (what `json_extract` returns).
/// - Comparison: `NULL` against anything is unknown; numbers (integer or real, compared exactly)
///   sort before text; text compares by UTF-8 bytes.
/// - `LIKE`: `%` any run and `_` one character; ASCII letters match either case, others only exactly;
///   numbers are matched as their text.
/// - Logic: SQL's three values (unknown is neither true nor false; `NOT unknown` is unknown).
enum QueryOracle {
    enum SQLValue: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text([UInt8])
    }

    static func sqlValue(_ json: JSON?) -> SQLValue {
        switch json {
        case nil, .null?: .null
        case .bool(let v)?: .integer(v ? 1 : 0)
        case .integer(let v)?: .integer(v)
        case .double(let v)?: .real(v)
        case .string(let v)?: .text(Array(v.utf8))
        case let container?: .text(Array(container.canonicalText.utf8))
        }
    }

    /// -1, 0 or 1; nil when either side is NULL.
    static func compare(_ a: SQLValue, _ b: SQLValue) -> Int? {
        switch (a, b) {
        case (.null, _), (_, .null): return nil
        case (.text(let x), .text(let y)):
            if x == y { return 0 }
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        case (.text, _): return 1
        case (_, .text): return -1
        default:
            return compareNumbers(a, b)
        }
    }

    private static func compareNumbers(_ a: SQLValue, _ b: SQLValue) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.real(let x), .real(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .real(let y)): return -compareRealToInteger(y, x)
        case (.real(let x), .integer(let y)): return compareRealToInteger(x, y)
        default: return 0
        }
    }

    /// Exact, as SQLite compares a REAL with an INTEGER (no rounding of large integers).
    private static func compareRealToInteger(_ real: Double, _ integer: Int64) -> Int {
        if real < -9.3e18 { return -1 }
        if real >= 9.3e18 { return 1 }
        let truncated = Int64(real.rounded(.down))
        if truncated != integer { return truncated < integer ? -1 : 1 }
        return real > Double(truncated) ? 1 : 0
    }

    /// The order of ORDER BY: NULL first, then numbers, then text.
    static func order(_ a: SQLValue, _ b: SQLValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: return compare(a, b)!
        }
    }

    static func evaluate(_ predicate: DocumentPredicate, _ body: JSON) -> Bool? {
        switch predicate {
        case .comparison(let field, let op, let value):
            guard let c = compare(sqlValue(field.value(in: body)), sqlValue(value)) else { return nil }
            switch op {
            case .equal: return c == 0
            case .notEqual: return c != 0
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            case .greaterOrEqual: return c >= 0
            }
        case .isIn(let field, let values):
            let x = sqlValue(field.value(in: body))
            if values.isEmpty { return false }
            if x == .null { return nil }
            var sawNull = false
            for value in values {
                guard let c = compare(x, sqlValue(value)) else { sawNull = true; continue }
                if c == 0 { return true }
            }
            return sawNull ? nil : false
        case .like(let field, let pattern):
            guard let text = likeText(sqlValue(field.value(in: body))) else { return nil }
            return like(Array(text.unicodeScalars), Array(pattern.unicodeScalars))
        case .contains(let field, let value):
            guard case .array(let items)? = field.value(in: body) else { return false }
            return items.contains { compare(sqlValue($0), sqlValue(value)) == 0 }
        case .exists(let field):
            return field.value(in: body) != nil
        case .and(let parts):
            let results = parts.map { evaluate($0, body) }
            if results.contains(false) { return false }
            return results.contains(nil) ? nil : true
        case .or(let parts):
            let results = parts.map { evaluate($0, body) }
            if results.contains(true) { return true }
            return results.contains(nil) ? nil : false
        case .not(let part):
            return evaluate(part, body).map { !$0 }
        }
    }

    /// The text SQLite's LIKE sees (the generated reals are multiples of 1/4 below 1000, whose
    /// `%!.15g` text is Swift's description).
    private static func likeText(_ value: SQLValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let v): String(v)
        case .real(let v): v.description
        case .text(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }

    static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        // matches[i][j]: text[i...] matches pattern[j...]
        var matches = Array(repeating: Array(repeating: false, count: pattern.count + 1), count: text.count + 1)
        matches[text.count][pattern.count] = true
        for j in stride(from: pattern.count - 1, through: 0, by: -1) {
            for i in stride(from: text.count, through: 0, by: -1) {
                switch pattern[j] {
                case "%": matches[i][j] = matches[i][j + 1] || (i < text.count && matches[i + 1][j])
                case "_": matches[i][j] = i < text.count && matches[i + 1][j + 1]
                default: matches[i][j] = i < text.count && fold(text[i]) == fold(pattern[j]) && matches[i + 1][j + 1]
                }
            }
        }
        return matches[0][0]
    }

    /// The identifiers a query returns: matching documents, sorted by the terms then the identifier.
    static func run(_ documents: [(id: String, body: JSON)], predicate: DocumentPredicate?,
                    sort: [(Field, Bool)], limit: Int?, offset: Int) -> [String] {
        var rows = documents.filter { document in predicate.map { evaluate($0, document.body) == true } ?? true }
        rows.sort { a, b in
            for (field, ascending) in sort {
                let c = order(sqlValue(field.value(in: a.body)), sqlValue(field.value(in: b.body)))
                if c != 0 { return ascending ? c < 0 : c > 0 }
            }
            return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }
        let ids = rows.map(\.id).dropFirst(offset)
        return Array(limit.map { ids.prefix($0) } ?? ids)
    }
}
