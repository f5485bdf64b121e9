import Foundation

extension StreamingBinaryTable {
    /// The bytes `BinaryPlistWriter` writes for a scalar (never called for containers).
    static func encode(_ value: PlistValue) -> [UInt8] {
        var out: [UInt8] = []
        switch value {
        case .bool(let b): out.append(b ? 0x09 : 0x08)
        case .integer(let integer):
            if integer.isWide {
                out.append(0x14)
                appendBigEndian(UInt128(truncatingIfNeeded: integer.value), width: 16, to: &out)
            } else {
                appendInt(Int64(truncatingIfNeeded: integer.value), to: &out)
            }
        case .float(let f):
            out.append(0x22)
            appendBigEndian(f.bitPattern, width: 4, to: &out)
        case .real(let d):
            out.append(0x23)
            appendBigEndian(d.bitPattern, width: 8, to: &out)
        case .date(let date):
            out.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8, to: &out)
        case .data(let data):
            appendMarker(0x40, count: data.count, to: &out)
            out.append(contentsOf: data)
        case .string(let string):
            let utf8 = string.utf8
            if utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x50, count: utf8.count, to: &out)
                out.append(contentsOf: utf8)
            } else {
                let units = string.utf16
                appendMarker(0x60, count: units.count, to: &out)
                out.reserveCapacity(out.count + 2 * units.count)
                for u in units { appendBigEndian(u, width: 2, to: &out) }
            }
        case .uid(let u):
            let width = max(1, (64 - u.leadingZeroBitCount + 7) / 8)
            out.append(0x80 | UInt8(width - 1))
            appendBigEndian(u, width: width, to: &out)
        case .array, .dictionary:
            break
        }
        return out
    }

    static func appendBigEndian<T: FixedWidthInteger>(_ value: T, width: Int, to out: inout [UInt8]) {
        for k in stride(from: width - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    static func appendInt(_ v: Int64, to out: inout [UInt8]) {
        let u = UInt64(bitPattern: v)
        if u <= 0xFF {
            out.append(0x10); out.append(UInt8(u))
        } else if u <= 0xFFFF {
            out.append(0x11); appendBigEndian(u, width: 2, to: &out)
        } else if u <= 0xFFFF_FFFF {
            out.append(0x12); appendBigEndian(u, width: 4, to: &out)
        } else {
            out.append(0x13); appendBigEndian(u, width: 8, to: &out)
        }
    }

    static func appendMarker(_ marker: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            appendInt(Int64(count), to: &out)
        }
    }

    /// The length of the scalar encoding at `start` (as `encode` writes them).
    static func length(of bytes: [UInt8], at start: Int) -> Int {
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: return 1
        case 0x1: return 1 + (1 << low)
        case 0x2: return 1 + (1 << low)
        case 0x3: return 9
        case 0x8: return 2 + low
        default:
            var count = low, header = 1
            if low == 15 {
                let width = 1 << Int(bytes[start + 1] & 0x0F)
                count = 0
                for k in 0..<width { count = count << 8 | Int(bytes[start + 2 + k]) }
                header = 2 + width
            }
            return header + count * (marker >> 4 == 0x6 ? 2 : 1)
        }
    }

    /// The width CoreFoundation or Foundation uses for offsets and references up to `value`.
    func byteWidth(_ value: UInt64) -> Int {
        var n = max(1, (64 - value.leadingZeroBitCount + 7) / 8)
        if mode == .coreFoundation { while n != 1 && n != 2 && n != 4 && n != 8 { n += 1 } }
        return n
    }

    /// Writes the file, handing it to `emit` in chunks of about `chunkSize` bytes.
    mutating func serialize(chunkSize: Int, emit: (Data) throws -> Void) throws {
        slots = []
        let numObjects = info.count
        let refSize = byteWidth(UInt64(numObjects))
        var out: [UInt8] = Array("bplist00".utf8)
        out.reserveCapacity(chunkSize + 1024)
        var written = 0
        func flush(_ force: Bool) throws {
            guard force || out.count >= chunkSize else { return }
            written += out.count
            try emit(Data(out))
            out.removeAll(keepingCapacity: true)
        }
        for i in 0..<numObjects {
            let entry = info[i]
            // From here on `info` holds each object's offset in the output.
            info[i] = written + out.count
            if entry >= 0 {
                out.append(contentsOf: arena[entry..<entry + Self.length(of: arena, at: entry)])
            } else {
                let container = -entry - 1
                let n = containerCount[container]
                let isDict = containerIsDict[container]
                Self.appendMarker(isDict ? 0xD0 : 0xA0, count: n, to: &out)
                let start = containerRefStart[container]
                for r in refs[start..<start + (isDict ? 2 * n : n)] { Self.appendBigEndian(r, width: refSize, to: &out) }
            }
            try flush(false)
        }
        arena = []
        refs = []
        let tableOffset = written + out.count
        let offsetSize = byteWidth(UInt64(tableOffset))
        for o in info {
            Self.appendBigEndian(UInt64(o), width: offsetSize, to: &out)
            try flush(false)
        }
        out.append(contentsOf: repeatElement(0, count: 6))
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        Self.appendBigEndian(UInt64(numObjects), width: 8, to: &out)
        Self.appendBigEndian(UInt64(0), width: 8, to: &out)
        Self.appendBigEndian(UInt64(tableOffset), width: 8, to: &out)
        try flush(true)
    }
}
