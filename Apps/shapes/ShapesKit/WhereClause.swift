import DocumentStore
import Foundation

/// A `--where` condition, `FIELD OP VALUE`, parsed into a typed `DocumentPredicate`.
///
/// The value becomes a bound parameter of the query, never SQL text, and the field a `Field` path
/// that DocumentStore quotes; nothing the user types is spliced into SQL.
///
/// ```swift
/// let predicate = try WhereClause.parse("radius > 1")   // Field("radius") > 1
/// let circles = try persistence.query(Circle.self).where(predicate).fetch()
/// ```
///
/// - FIELD: a key (letters, digits, `_`; not starting with a digit), dotted for nested objects and
///   with `[n]` for array elements: `radius`, `owner.name`, `tags[0]`.
/// - OP: `=` (or `==`), `!=` (or `<>`), `<`, `<=`, `>`, `>=`, or `like` (any case; SQL `LIKE`, `%`
///   and `_` wildcards).
/// - VALUE: a number (`2`, `-1.5`, `1e3`), `true` or `false`, or a string, quoted (`"big one"`,
///   `'b%'`) or bare (`big`). `null` is refused: it compares as SQL `NULL` and matches nothing.
public enum WhereClause {
    /// What is wrong with a condition: the text, the character position (from 0) and why.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The condition as given.
        public let text: String
        /// Where the problem is, in characters from the start of `text`.
        public let position: Int
        /// What is wrong there.
        public let reason: String

        /// The reason and where it is, with the expected form.
        public var description: String {
            "cannot read the condition \"\(text)\" at character \(position + 1): \(reason); write FIELD OP VALUE, e.g. \"radius > 1\""
        }
    }

    /// The operators, longest first so `<=` is not read as `<`.
    static let symbols: [(String, ComparisonOperator)] = [
        ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("!=", .notEqual), ("<>", .notEqual), ("==", .equal),
        ("=", .equal), ("<", .less), (">", .greater),
    ]

    /// Parses `text` into a predicate.
    ///
    /// - Throws: ``ParseError`` naming the part that is missing or wrong: no field, a field that is
    ///   not a path, no or an unknown operator, no value, an unterminated string, `null`, or `like`
    ///   with something other than text.
    public static func parse(_ text: String) throws(ParseError) -> DocumentPredicate {
        let characters = Array(text)
        var position = 0
        func fail(_ reason: String, at: Int? = nil) -> ParseError {
            ParseError(text: text, position: at ?? position, reason: reason)
        }
        func skipSpaces() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        skipSpaces()
        let fieldStart = position
        while position < characters.count, isPathCharacter(characters[position]) { position += 1 }
        let name = String(characters[fieldStart..<position])
        guard !name.isEmpty else {
            throw fail(position == characters.count ? "it is empty" : "expected a field name, found \"\(characters[position])\"")
        }
        if let problem = pathProblem(name) { throw fail("\"\(name)\" is not a field path: \(problem)", at: fieldStart) }
        let field = Field(name)

        skipSpaces()
        let operatorStart = position
        let rest = String(characters[position...])
        var comparison: ComparisonOperator?   // nil for `like`
        if let (symbol, op) = symbols.first(where: { rest.hasPrefix($0.0) }) {
            comparison = op
            position += symbol.count
        } else {
            var end = position
            while end < characters.count, characters[end].isLetter { end += 1 }
            let word = String(characters[position..<end])
            guard word.lowercased() == "like" else {
                throw fail(rest.isEmpty ? "no operator after \(name)"
                           : "unknown operator \"\(word.isEmpty ? String(characters[position]) : word)\" after \(name) (use = != < <= > >= or like)")
            }
            position = end
        }
        let opText = String(characters[operatorStart..<position])

        skipSpaces()
        let valueStart = position
        let raw = String(characters[position...]).trimmingCharacters(in: .whitespaces)
        guard !raw.isEmpty else { throw fail("no value after \(opText)") }
        let value: JSON
        if let quote = raw.first, quote == "\"" || quote == "'" {
            guard raw.count >= 2, raw.last == quote else { throw fail("the string \(raw) has no closing \(quote)", at: valueStart) }
            value = .string(String(raw.dropFirst().dropLast()))
        } else {
            value = try bareValue(raw, in: text, at: valueStart)
        }

        guard let comparison else {
            guard case .string(let pattern) = value else {
                throw fail("like needs a text pattern, not \(raw) (quote it to match it as text)", at: valueStart)
            }
            return .like(field, pattern)
        }
        return .comparison(field, comparison, value)
    }

    /// A value without quotes: a Boolean, a decimal number, or the word(s) as text.
    private static func bareValue(_ raw: String, in text: String, at position: Int) throws(ParseError) -> JSON {
        switch raw {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null":
            throw ParseError(text: text, position: position,
                             reason: "null matches no comparison (a missing or null field compares as SQL NULL); quote it to mean the text")
        default: break
        }
        // Only decimal notation: Swift's Double(_:) also reads "inf", "nan" and hexadecimal floats.
        let startsLikeNumber = raw.first.map { $0.isNumber || "+-.".contains($0) } ?? false
        if startsLikeNumber && raw.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) {
            if let integer = Int64(raw) { return .integer(integer) }
            if let number = Double(raw), number.isFinite { return .double(number) }
            throw ParseError(text: text, position: position, reason: "\(raw) is not a number (quote it to mean the text)")
        }
        return .string(raw)
    }

    /// Why `name` is not a field path (see ``parse(_:)``), or `nil` when it is one; `--sort` checks its field with this.
    static func fieldProblem(_ name: String) -> String? {
        guard let bad = name.first(where: { !isPathCharacter($0) }) else { return pathProblem(name) }
        return "\"\(bad)\" cannot be part of a field name"
    }

    private static func isPathCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "_.[]".contains(character))
    }

    /// Why `name` is not a path of keys and `[n]` positions, or `nil` when it is one.
    private static func pathProblem(_ name: String) -> String? {
        for segment in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard let first = segment.first else { return "it has an empty key (two dots, or a dot at an end)" }
            guard !first.isNumber, first != "[" else { return "the key \"\(segment)\" must start with a letter or _" }
            var rest = segment.drop(while: { $0 != "[" })
            guard !segment.prefix(while: { $0 != "[" }).contains("]") else { return "\"]\" without \"[\" in \"\(segment)\"" }
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return "an unclosed \"[\" in \"\(segment)\"" }
                let digits = rest[rest.index(after: rest.startIndex)..<close]
                guard !digits.isEmpty, digits.allSatisfy(\.isNumber), Int(digits) != nil else {
                    return "an array position must be a number, as in tags[0]"
                }
                rest = rest[rest.index(after: close)...]
            }
        }
        return nil
    }
}
