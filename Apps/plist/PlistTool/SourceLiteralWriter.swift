import Foundation
import PlistCodec

/// Writes a property list as Swift or Objective-C literal source, as `plutil -convert swift|objc` does.
///
/// ```
/// /// Generated from Info.plist
/// let Info = [
///     "CFBundleName" : "Demo",
/// ]
/// ```
/// Four spaces per level, keys sorted, a comma after every element. Dates, data and UIDs have no
/// literal form and throw `InvalidObjectError`.
struct SourceLiteralWriter {
    enum Language { case swift, objc }

    var language: Language
    /// The name of the input file, for the comment and the variable.
    var sourceName: String

    func write(_ value: PlistValue) throws -> Data {
        let name = Self.identifier(from: sourceName)
        var out = "/// Generated from \(sourceName)\n"
        switch language {
        case .swift:
            out.append("let \(name) = ")
        case .objc:
            let type: String
            switch value {
            case .dictionary: type = "NSDictionary"
            case .array: type = "NSArray"
            case .string: type = "NSString"
            default: type = "NSNumber"
            }
            out.append("__attribute__((visibility(\"hidden\")))\n\(type) * const \(name) = ")
        }
        try literal(value, indent: 0, into: &out)
        out.append(language == .objc ? ";\n" : "\n")
        return Data(out.utf8)
    }

    private func literal(_ value: PlistValue, indent: Int, into out: inout String) throws {
        let pad = String(repeating: "    ", count: indent + 1)
        let closePad = String(repeating: "    ", count: indent)
        let at = language == .objc ? "@" : ""
        switch value {
        case .dictionary(let dictionary):
            if dictionary.isEmpty { out.append(language == .objc ? "@{}" : "[:]"); return }
            out.append(at + (language == .objc ? "{" : "[") + "\n")
            for (key, item) in dictionary.sortedForOutput() {
                out.append(pad + at + JSONPlistWriter.quoted(key).replacingOccurrences(of: "\\/", with: "/") + " : ")
                try literal(item, indent: indent + 1, into: &out)
                out.append(",\n")
            }
            out.append(closePad + (language == .objc ? "}" : "]"))
        case .array(let items):
            if items.isEmpty { out.append(at + "[]"); return }
            out.append(at + "[\n")
            for item in items {
                out.append(pad)
                try literal(item, indent: indent + 1, into: &out)
                out.append(",\n")
            }
            out.append(closePad + "]")
        case .string(let string): out.append(at + JSONPlistWriter.quoted(string).replacingOccurrences(of: "\\/", with: "/"))
        case .integer(let integer): out.append(at + integer.description)
        case .real(let double):
            guard double.isFinite else { throw InvalidObjectError() }
            out.append(at + PlistText.number(double))
        case .float(let float):
            guard float.isFinite else { throw InvalidObjectError() }
            out.append(at + PlistText.number(Double(float)))
        case .bool(let bool):
            out.append(language == .objc ? (bool ? "@YES" : "@NO") : (bool ? "true" : "false"))
        case .date, .data, .uid: throw InvalidObjectError()
        }
    }

    /// A variable name from a file name: its base name, with characters an identifier cannot hold
    /// replaced by `_` (and a leading `_` before a digit).
    static func identifier(from fileName: String) -> String {
        let base = (fileName as NSString).lastPathComponent
        let stem = base.contains(".") ? String(base[..<(base.lastIndex(of: ".") ?? base.endIndex)]) : base
        var name = String(stem.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if name.isEmpty { name = "plist" }
        if name.first?.isNumber == true { name = "_" + name }
        return name
    }
}
