import Foundation
import PlistCodec

/// Reads JSON text into a `PlistValue`, for `-insert ... -json`: objects keep their key order,
/// whole numbers become integers, other numbers reals; `null` has no property-list form.
struct JSONPlistReader {
    private let bytes: [UInt8]
    private var position = 0

    /// Malformed JSON: what and at which byte.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ text: String) throws -> PlistValue {
        var reader = JSONPlistReader(bytes: Array(text.utf8))
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw reader.failure("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ what: String) -> Failure {
        Failure(description: "invalid JSON: \(what) at byte \(position)")
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        let want = Array(literal.utf8)
        guard bytes.count - position >= want.count, Array(bytes[position..<position + want.count]) == want else {
            throw failure("expected \(literal)")
        }
        position += want.count
    }

    private mutating func value(depth: Int) throws -> PlistValue {
        guard depth < 512 else { throw failure("nesting too deep") }
        skipSpace()
        guard position < bytes.count else { throw failure("unexpected end") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var dictionary = PlistDictionary()
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .dictionary(dictionary) }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(":")
                dictionary[key] = try value(depth: depth + 1)
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                try expect("}")
                return .dictionary(dictionary)
            }
        case UInt8(ascii: "["):
            position += 1
            var items: [PlistValue] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                try expect("]")
                return .array(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): throw failure("null has no property-list form")
        default: return try number()
        }
    }

    private mutating func number() throws -> PlistValue {
        let start = position
        while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if let integer = Int64(text) { return .int(Int(integer)) }
        guard !text.isEmpty, let real = Double(text) else { position = start; throw failure("expected a value") }
        return .real(real)
    }

    private mutating func string() throws -> String {
        try expect("\"")
        var scalars = String.UnicodeScalarView()
        var run = position
        func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flush(position)
                position += 1
                return String(scalars)
            }
            if byte == UInt8(ascii: "\\") {
                flush(position)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800..<0xDC00).contains(unit), bytes[position...].starts(with: Array("\\u".utf8)) {
                        position += 2
                        let low = try hex4()
                        // Only a low surrogate completes the pair; `\ud800\u0000` once underflowed here and trapped.
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("invalid \\u escape: a high surrogate without a low one") }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else { throw failure("invalid \\u escape") }
                    scalars.append(scalar)
                default: scalars.append(Unicode.Scalar(escape))
                }
                run = position
                continue
            }
            position += 1
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - position >= 4, let unit = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
            throw failure("invalid \\u escape")
        }
        position += 4
        return unit
    }
}
