import Foundation

/// The values the `UserDefaults` differential test stores, shared by the test and `defaults-oracle`
/// (the child that asks `Foundation.UserDefaults` on this machine).
public enum DefaultsOracleCase: Sendable {
    /// One stored value: a name, and how to store it.
    public enum Stored: Sendable {
        case bool(Bool), int(Int), double(Double), float(Float), string(String), date(Date), data(Data)
    }

    /// Every case, by name. Strings cover Foundation's prefix parsing and `bool`'s first-character rule.
    public static let all: [(name: String, value: Stored)] = [
        ("bool-true", .bool(true)), ("bool-false", .bool(false)),
        ("int-42", .int(42)), ("int-0", .int(0)), ("int-negative", .int(-7)),
        ("double-2.67", .double(2.67)), ("double-negative", .double(-2.67)), ("double-0.1", .double(0.1)),
        ("double-1e20", .double(1e20)), ("double-0", .double(0)), ("float-1.5", .float(1.5)),
        ("string-42", .string("42")), ("string-42abc", .string("42abc")), ("string-space-42", .string(" 42")),
        ("string-tab-42", .string("\t42")), ("string-plus-42", .string("+42")), ("string-minus-42", .string("-42")),
        ("string-4.7", .string("4.7")), ("string-1e3", .string("1e3")), ("string-abc", .string("abc")),
        ("string-empty", .string("")), ("string-yes", .string("yes")), ("string-YES", .string("YES")),
        ("string-Y", .string("Y")), ("string-t", .string("t")), ("string-true", .string("true")),
        ("string-no", .string("no")), ("string-false", .string("false")), ("string-0", .string("0")),
        ("string-9", .string("9")), ("string-007", .string("007")), ("string-000", .string("000")),
        ("string-minus-1", .string("-1")), ("string-space-yes", .string("  yes")), ("string-x", .string("x")),
        ("string-path", .string("/tmp/file.txt")), ("string-tilde", .string("~/notes.txt")),
        ("string-relative", .string("relative/file")),
        ("date", .date(Date(timeIntervalSinceReferenceDate: 700_000_000.25))), ("data", .data(Data([1, 2, 3]))),
    ]

    /// The getters compared, in the order of each answer line's fields.
    public static let getters = ["string", "integer", "double", "float", "bool", "url"]

    /// `text` with backslashes, tabs and newlines escaped, so an answer stays one field of one line.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// How an answer is written: `nil` for none, numbers in full precision.
    public static func format(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let s as String: return "s:" + escaped(s)
        case let i as Int: return "i:\(i)"
        case let d as Double: return "d:\(d.bitPattern)"
        case let f as Float: return "f:\(f.bitPattern)"
        case let b as Bool: return "b:\(b)"
        case let u as URL: return "u:" + escaped(u.absoluteString)
        default: return "?:\(value!)"
        }
    }
}
