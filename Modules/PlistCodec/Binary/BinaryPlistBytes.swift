import Foundation

/// The byte layout of `bplist00` objects and trailer, shared by both binary writers
/// (`BinaryPlistWriter` for `PlistValue`s, `ArenaBinaryWriter` for `PlistEncoder`).
enum BinaryPlistBytes {
    /// The byte width for offsets and references: the minimum for Foundation, the next power of two
    /// (1, 2, 4, 8) for CoreFoundation.
    static func byteWidth(_ value: UInt64, mode: PlistWriteMode) -> Int {
        var n = max(1, (64 - value.leadingZeroBitCount + 7) / 8)
        if mode == .coreFoundation { while n != 1 && n != 2 && n != 4 && n != 8 { n += 1 } }
        return n
    }

    /// The offset table and the 32-byte trailer, after the last object.
    static func writeTrailer(offsets: [Int], numObjects: Int, refSize: Int, mode: PlistWriteMode, to out: ByteWriter) {
        let tableOffset = out.count
        let offsetSize = byteWidth(UInt64(tableOffset), mode: mode)
        out.ensure(offsets.count * offsetSize + 32)
        for o in offsets { out.appendBigEndian(UInt64(o), width: offsetSize) }
        out.append(repeating: 0, count: 6)
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        out.appendBigEndian(UInt64(numObjects), width: 8)
        out.appendBigEndian(UInt64(0), width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
    }

    static func writeMarker(_ marker: UInt8, count: Int, to out: ByteWriter) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            writeInt(Int64(count), to: out)
        }
    }

    static func writeInt(_ v: Int64, to out: ByteWriter) {
        let u = UInt64(bitPattern: v)
        if u <= 0xFF {
            out.append(0x10); out.append(UInt8(u))
        } else if u <= 0xFFFF {
            out.append(0x11); out.appendBigEndian(u, width: 2)
        } else if u <= 0xFFFF_FFFF {
            out.append(0x12); out.appendBigEndian(u, width: 4)
        } else {
            out.append(0x13); out.appendBigEndian(u, width: 8)
        }
    }

    /// ASCII (`5n`) when every code unit is below 0x80, else UTF-16 big-endian (`6n`).
    static func writeString(_ s: String, to out: ByteWriter) {
        var str = s
        let isASCII = str.withUTF8 { buf -> Bool in
            for b in buf where b >= 0x80 { return false }
            writeMarker(0x50, count: buf.count, to: out)
            out.append(UnsafeRawBufferPointer(buf))
            return true
        }
        if isASCII { return }
        let units = str.utf16
        writeMarker(0x60, count: units.count, to: out)
        out.ensure(units.count * 2)
        for u in units { out.appendBigEndian(u, width: 2) }
    }
}
