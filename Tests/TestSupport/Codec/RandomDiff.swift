import Foundation

/// Exact comparison of decoded values and readable byte diffs, for differential tests.
///
/// ```swift
/// if let where = ExactDiff.firstDifference(decoded, expected) { print(where) }
/// ```
///
/// Equality is stricter than `==` where `==` would hide a difference and looser where it would
/// invent one: floating-point values and dates compare by bit pattern except that any NaN equals any
/// NaN; strings compare by Unicode scalars (Swift `==` calls canonically equivalent strings equal);
/// types must match exactly.
public enum ExactDiff {
    /// A description of the first difference between `a` and `b` (with its path), or nil if none.
    public static func firstDifference(_ a: Any, _ b: Any, path: String = "value") -> String? {
        guard type(of: a) == type(of: b) else {
            return "\(path): type \(type(of: a)) vs \(type(of: b))"
        }
        if let x = a as? Double, let y = b as? Double {
            return sameBits(x, y) ? nil : "\(path): \(describe(x)) vs \(describe(y))"
        }
        if let x = a as? Float, let y = b as? Float {
            return (x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)) ? nil
                : "\(path): \(x) (0x\(String(x.bitPattern, radix: 16))) vs \(y) (0x\(String(y.bitPattern, radix: 16)))"
        }
        if let x = a as? Date, let y = b as? Date {
            let (s, t) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            return sameBits(s, t) ? nil : "\(path): date \(describe(s)) vs \(describe(t)) (s since 2001)"
        }
        if let x = a as? String, let y = b as? String {
            return x.unicodeScalars.elementsEqual(y.unicodeScalars) ? nil
                : "\(path): string \(scalars(x)) vs \(scalars(y))"
        }
        if let x = a as? Data, let y = b as? Data {
            return x == y ? nil : "\(path): data of \(x.count) bytes vs \(y.count) bytes"
        }
        if let x = a as? AnyHashable, !(a is any Collection), Mirror(reflecting: a).displayStyle != .struct,
           Mirror(reflecting: a).displayStyle != .optional, let y = b as? AnyHashable {
            return x == y ? nil : "\(path): \(x) vs \(y)"
        }
        let ma = Mirror(reflecting: a), mb = Mirror(reflecting: b)
        switch ma.displayStyle {
        case .optional:
            let ca = Array(ma.children), cb = Array(mb.children)
            switch (ca.first, cb.first) {
            case (nil, nil): return nil
            case (let x?, let y?): return firstDifference(x.value, y.value, path: path)
            default: return "\(path): \(ca.isEmpty ? "nil" : "some") vs \(cb.isEmpty ? "nil" : "some")"
            }
        case .dictionary:
            func entries(_ m: Mirror) -> [String: Any] {
                var result: [String: Any] = [:]
                for child in m.children {
                    let pair = Array(Mirror(reflecting: child.value).children)
                    guard pair.count == 2 else { continue }
                    result[keyText(pair[0].value)] = pair[1].value
                }
                return result
            }
            let ea = entries(ma), eb = entries(mb)
            if Set(ea.keys) != Set(eb.keys) {
                let missing = Set(ea.keys).symmetricDifference(eb.keys).sorted().prefix(3)
                return "\(path): keys differ (\(ea.count) vs \(eb.count)), e.g. \(missing.map(scalars))"
            }
            for key in ea.keys.sorted() {
                if let d = firstDifference(ea[key] as Any, eb[key] as Any, path: "\(path)[\(scalars(key))]") { return d }
            }
            return nil
        default:
            let ca = Array(ma.children), cb = Array(mb.children)
            guard ca.count == cb.count else { return "\(path): \(ca.count) vs \(cb.count) elements" }
            for (i, (x, y)) in zip(ca, cb).enumerated() {
                let sub = x.label.map { "\(path).\($0)" } ?? "\(path)[\(i)]"
                if let d = firstDifference(x.value, y.value, path: sub) { return d }
            }
            if ca.isEmpty, ma.displayStyle == .enum || ma.displayStyle == nil {
                let (sa, sb) = (String(reflecting: a), String(reflecting: b))
                return sa == sb ? nil : "\(path): \(sa) vs \(sb)"
            }
            return nil
        }
    }

    /// Whether two doubles have the same bits, or are both NaN.
    public static func sameBits(_ x: Double, _ y: Double) -> Bool {
        x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    }

    private static func describe(_ x: Double) -> String { "\(x) (0x\(String(x.bitPattern, radix: 16)))" }

    private static func keyText(_ key: Any) -> String {
        if let s = key as? String { return s }
        return String(reflecting: key)
    }

    /// A string with each scalar above ASCII printable written as `\u{XXXX}`, in quotes.
    public static func scalars(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars.prefix(80) {
            if scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\\" && scalar != "\"" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return out + (s.unicodeScalars.count > 80 ? "…(\(s.unicodeScalars.count) scalars)\"" : "\"")
    }

    /// A description of where two byte strings first differ, with a hex (and, for text, line) excerpt.
    public static func describeMismatch(ours: Data, theirs: Data) -> String? {
        let a = [UInt8](ours), b = [UInt8](theirs)
        guard a != b else { return nil }
        let offset = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        var text = "bytes differ at offset \(offset) (ours \(a.count) bytes, Foundation's \(b.count) bytes)\n"
        text += "  ours:       \(hex(a, around: offset))\n"
        text += "  Foundation: \(hex(b, around: offset))"
        if a.starts(with: Array("<?xml".utf8)) {
            text += "\n  ours line:       \(line(a, at: offset))\n  Foundation line: \(line(b, at: offset))"
        } else if a.count >= 40, b.count >= 40 {
            text += "\n  ours trailer:       \(hex(Array(a.suffix(32)), around: 0, width: 32))"
            text += "\n  Foundation trailer: \(hex(Array(b.suffix(32)), around: 0, width: 32))"
        }
        return text
    }

    /// `width` bytes of hex starting a little before `offset`, with the byte at `offset` bracketed.
    public static func hex(_ bytes: [UInt8], around offset: Int, width: Int = 24) -> String {
        let start = max(0, offset - 8), end = min(bytes.count, start + width)
        guard start < end else { return "(end of data at \(bytes.count))" }
        let body = (start..<end).map { i in
            let h = String(format: "%02x", bytes[i])
            return i == offset ? "[\(h)]" : h
        }
        return "@\(start): " + body.joined(separator: " ")
    }

    private static func line(_ bytes: [UInt8], at offset: Int) -> String {
        let clamped = min(offset, bytes.count)
        let start = bytes[..<clamped].lastIndex(of: 10).map { $0 + 1 } ?? 0
        let end = bytes[clamped...].firstIndex(of: 10) ?? bytes.count
        let lineNumber = bytes[..<clamped].filter { $0 == 10 }.count + 1
        return "line \(lineNumber): " + scalars(String(decoding: bytes[start..<end].prefix(200), as: UTF8.self))
    }
}
