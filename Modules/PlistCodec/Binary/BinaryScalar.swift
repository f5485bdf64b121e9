import Foundation

/// Decoding of non-container objects, for `BinaryPlistWalker`: every object that is not an array or
/// a dictionary is read here, with its bounds checked against the object area.
enum BinaryScalar {
    /// Reads the scalar at `offset`. With `build` false it makes every check (the same errors in the
    /// same order) but builds nothing: strings come back as `.string("")` and every other kind as
    /// `.bool(false)`, which is all a sink that keeps no values needs.
    @inline(__always)
    static func read<Bytes>(_ doc: BinaryPlistFile<Bytes>, at offset: Int, build: Bool = true) throws -> PlistValue {
        let bytes = doc.bytes
        let marker = bytes[offset]
        let high = marker >> 4, low = marker & 0x0F
        switch high {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw PlistError(.malformed, "binary plist: marker 0x\(hex(marker)) is not a property-list object", at: .byte(offset))
            }
        case 0x1:
            guard low <= 4 else {
                throw PlistError(.malformed, "binary plist: integer of \(1 << Int(min(low, 15))) bytes is not supported", at: .byte(offset))
            }
            let width = 1 << Int(low)
            try doc.checkRange(offset + 1, width, what: "an integer")
            guard build else { return .bool(false) }
            if width == 16 {
                let hi = BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 8)
                let lo = BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 9, width: 8)
                let v = Int128(truncatingIfNeeded: UInt128(hi) << 64 | UInt128(lo))
                return .integer(PlistInteger(v, isWide: true))
            }
            let u = BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: width)
            // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
            let v = width == 8 ? Int128(Int64(bitPattern: u)) : Int128(u)
            return .integer(PlistInteger(v, isWide: false))
        case 0x2:
            if low == 2 {
                try doc.checkRange(offset + 1, 4, what: "a 4-byte real")
                guard build else { return .bool(false) }
                return .float(Float(bitPattern: UInt32(BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 4))))
            } else if low == 3 {
                try doc.checkRange(offset + 1, 8, what: "an 8-byte real")
                guard build else { return .bool(false) }
                return .real(Double(bitPattern: BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 8)))
            }
            throw PlistError(.malformed, "binary plist: real of width code \(low) is not 4 or 8 bytes", at: .byte(offset))
        case 0x3:
            guard marker == 0x33 else {
                throw PlistError(.malformed, "binary plist: date marker 0x\(hex(marker)) is not 0x33", at: .byte(offset))
            }
            try doc.checkRange(offset + 1, 8, what: "a date")
            guard build else { return .bool(false) }
            let t = Double(bitPattern: BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 8))
            return .date(Date(timeIntervalSinceReferenceDate: t))
        case 0x4:
            let (n, start) = try doc.count(nibble: low, markerAt: offset)
            try doc.checkRange(start, n, what: "data of \(n) bytes")
            guard build else { return .bool(false) }
            return .data(Data(bytes[start..<start + n]))
        case 0x5:
            let (n, start) = try doc.count(nibble: low, markerAt: offset)
            try doc.checkRange(start, n, what: "an ASCII string of \(n) bytes")
            let slice = bytes[start..<start + n]
            if !build {
                if doc.strict, let bad = slice.firstIndex(where: { $0 >= 0x80 }) {
                    throw PlistError(.invalidString, "binary plist: ASCII string has byte 0x\(hex(bytes[bad]))", at: .byte(bad))
                }
                return .string("")
            }
            if let bad = slice.firstIndex(where: { $0 >= 0x80 }) {
                if doc.strict {
                    throw PlistError(.invalidString, "binary plist: ASCII string has byte 0x\(hex(bytes[bad]))", at: .byte(bad))
                }
                // Real files have them (iTunes libraries, some preferences); Foundation reads each
                // byte as the code point of the same value (Latin-1): "caf\u{E9}" is "café".
                var scalars = String.UnicodeScalarView()
                scalars.append(contentsOf: slice.lazy.map { Unicode.Scalar($0) })
                return .string(String(scalars))
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (n, start) = try doc.count(nibble: low, markerAt: offset)
            try doc.checkRange(start, 2 * n, what: "a UTF-16 string of \(n) code units")
            if !build {
                if doc.strict, !utf16IsValid(doc, start: start, count: n) {
                    throw PlistError(.invalidString, "binary plist: UTF-16 string has an unpaired surrogate", at: .byte(start))
                }
                return .string("")
            }
            var units: [UInt16] = []
            units.reserveCapacity(n)
            for i in 0..<n { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
            guard let s = String(validating: units, as: UTF16.self) else {
                if doc.strict {
                    throw PlistError(.invalidString, "binary plist: UTF-16 string has an unpaired surrogate", at: .byte(start))
                }
                // As Foundation reads it: each unpaired surrogate becomes U+FFFD.
                return .string(String(decoding: units, as: UTF16.self))
            }
            return .string(s)
        case 0x8:
            let width = Int(low) + 1
            guard width <= 8 else {
                throw PlistError(.malformed, "binary plist: UID of \(width) bytes is wider than 8", at: .byte(offset))
            }
            try doc.checkRange(offset + 1, width, what: "a UID")
            guard build else { return .bool(false) }
            return .uid(BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: width))
        default:
            throw PlistError(.malformed, "binary plist: marker 0x\(hex(marker)) is not a property-list object", at: .byte(offset))
        }
    }

    static func hex(_ b: UInt8) -> String { String(b, radix: 16) }

    /// Whether `count` big-endian UTF-16 code units at `start` pair every surrogate.
    static func utf16IsValid<Bytes>(_ doc: BinaryPlistFile<Bytes>, start: Int, count: Int) -> Bool {
        var i = 0
        while i < count {
            let u = UInt16(doc.bytes[start + 2 * i]) << 8 | UInt16(doc.bytes[start + 2 * i + 1])
            i += 1
            if u & 0xF800 != 0xD800 { continue }
            // A high surrogate must be followed by a low one; a low one alone is unpaired.
            guard u < 0xDC00, i < count else { return false }
            let v = UInt16(doc.bytes[start + 2 * i]) << 8 | UInt16(doc.bytes[start + 2 * i + 1])
            guard v & 0xFC00 == 0xDC00 else { return false }
            i += 1
        }
        return true
    }
}
