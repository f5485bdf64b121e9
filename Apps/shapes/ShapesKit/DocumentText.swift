import DocumentStore
import Foundation

/// How the commands print documents: one line each, `<id>  Circle  radius 2  area 12.566`.
public enum DocumentText {
    /// The fields that lead a line, in this order; any others follow by name.
    static let leadingFields = ["side", "radius", "left", "right", "area"]

    /// One line for a document: identifier, kind, then its fields (dimensions first, then area).
    public static func line(_ snapshot: DocumentSnapshot) -> String {
        ([snapshot.identifier, snapshot.kind] + fields(snapshot.body).map { "\($0.name) \($0.value)" })
            .joined(separator: "  ")
    }

    /// A document's top-level fields as name and printed value, dimensions first.
    public static func fields(_ body: JSON) -> [(name: String, value: String)] {
        let all = body.objectValue ?? [:]
        let leading = leadingFields.filter { all[$0] != nil }
        let others = all.keys.filter { !leadingFields.contains($0) }.sorted()
        return (leading + others).map { ($0, value(all[$0] ?? .null)) }
    }

    /// A value as printed: numbers with at most three decimals (`2`, `2.5`, `12.566`), text as is.
    public static func value(_ json: JSON) -> String {
        switch json {
        case .integer(let number): return "\(number)"
        case .double(let number): return self.number(number)
        case .string(let text): return text
        default: return json.canonicalText
        }
    }

    /// `number` with at most three decimals and no trailing zeros.
    public static func number(_ number: Double) -> String {
        var text = String(format: "%.3f", number)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
