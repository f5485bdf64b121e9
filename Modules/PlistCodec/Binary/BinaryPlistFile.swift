import Foundation

/// The reader's view of a file: a copy of its bytes in an array.
typealias BinaryPlistDocument = BinaryPlistFile<[UInt8]>

extension BinaryPlistFile where Bytes == [UInt8] {
    /// Copies `data` and validates its trailer and offset table.
    init(_ data: Data, strict: Bool = false) throws {
        try self.init(bytes: [UInt8](data), strict: strict)
    }
}

/// A validated view of a `bplist00` file: its trailer and offset table, with bounds-checked access to
/// each object's marker and payload. Every read is checked against the file before anything is
/// allocated, so a count or offset in a hostile file cannot cause a large allocation or a crash.
///
/// Generic over its storage so a large file can be read in place (an `UnsafeRawBufferPointer` over a
/// memory-mapped file) as well as from an array.
struct BinaryPlistFile<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    let bytes: Bytes
    let offsetIntSize: Int
    let objectRefSize: Int
    let numObjects: Int
    let topObject: Int
    let offsetTableOffset: Int
    /// Refuse what Foundation tolerates (`PlistReadOptions.strict`): bytes above 0x7F in an ASCII
    /// string, unpaired surrogates in a UTF-16 one.
    let strict: Bool
    /// End of the object area (the offset table starts here).
    var objectsEnd: Int { offsetTableOffset }

    static var trailerSize: Int { 32 }

    init(bytes: Bytes, strict: Bool = false) throws {
        self.bytes = bytes
        self.strict = strict
        let n = bytes.count
        guard n >= 8, bytes[0..<7].elementsEqual("bplist0".utf8) else {
            throw PlistError(.unknownFormat, "binary plist: missing 'bplist0' header", at: .byte(0))
        }
        guard n >= 8 + 1 + 1 + Self.trailerSize else {
            throw PlistError(.truncated, "binary plist: \(n) bytes is too short for a header, an object and a 32-byte trailer", at: .byte(n))
        }
        let t = n - Self.trailerSize
        offsetIntSize = Int(bytes[t + 6])
        objectRefSize = Int(bytes[t + 7])
        let numObjects64 = Self.readUInt(bytes, at: t + 8, width: 8)
        let top64 = Self.readUInt(bytes, at: t + 16, width: 8)
        let table64 = Self.readUInt(bytes, at: t + 24, width: 8)
        guard (1...8).contains(offsetIntSize) else {
            throw PlistError(.malformed, "binary plist: trailer offset size \(offsetIntSize) is not 1 to 8", at: .byte(t + 6))
        }
        guard (1...8).contains(objectRefSize) else {
            throw PlistError(.malformed, "binary plist: trailer reference size \(objectRefSize) is not 1 to 8", at: .byte(t + 7))
        }
        guard numObjects64 >= 1 else {
            throw PlistError(.malformed, "binary plist: trailer says the file has no objects", at: .byte(t + 8))
        }
        guard table64 >= 9, table64 < UInt64(t) else {
            throw PlistError(.outOfRange, "binary plist: offset table at \(table64) is outside the object area 9..<\(t)", at: .byte(t + 24))
        }
        // The table must fit between its start and the trailer; checked before any allocation.
        let (tableBytes, overflow) = numObjects64.multipliedReportingOverflow(by: UInt64(offsetIntSize))
        guard !overflow, tableBytes <= UInt64(t) - table64 else {
            throw PlistError(.outOfRange, "binary plist: \(numObjects64) offsets of \(offsetIntSize) bytes do not fit between byte \(table64) and the trailer", at: .byte(t + 8))
        }
        numObjects = Int(numObjects64)
        offsetTableOffset = Int(table64)
        if (objectRefSize < 8) && (numObjects64 > UInt64(1) << (8 * UInt64(objectRefSize))) {
            throw PlistError(.outOfRange, "binary plist: \(numObjects) objects cannot be addressed with \(objectRefSize)-byte references", at: .byte(t + 7))
        }
        guard top64 < numObjects64 else {
            throw PlistError(.outOfRange, "binary plist: top object \(top64) is not below the object count \(numObjects)", at: .byte(t + 16))
        }
        topObject = Int(top64)
    }

    @inline(__always)
    static func readUInt(_ bytes: Bytes, at offset: Int, width: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<width { v = v << 8 | UInt64(bytes[offset + i]) }
        return v
    }

    /// The byte offset of object `index`, checked to lie in the object area.
    func offset(of index: Int, referencedAt site: Int) throws -> Int {
        guard index >= 0, index < numObjects else {
            throw PlistError(.outOfRange, "binary plist: reference to object \(index), but the file has \(numObjects)", at: .byte(site))
        }
        let entry = offsetTableOffset + index * offsetIntSize
        let off = Self.readUInt(bytes, at: entry, width: offsetIntSize)
        guard off >= 8, off < UInt64(objectsEnd) else {
            throw PlistError(.outOfRange, "binary plist: object \(index) has offset \(off), outside the object area 8..<\(objectsEnd)", at: .byte(entry))
        }
        return Int(off)
    }

    /// Reads `count` bytes at `offset`, checked to end inside the object area.
    func checkRange(_ offset: Int, _ count: Int, what: @autoclosure () -> String) throws {
        guard count >= 0, offset <= objectsEnd, count <= objectsEnd - offset else {
            throw PlistError(.truncated, "binary plist: \(what()) needs \(count) bytes at \(offset), past the end of the object area (\(objectsEnd))", at: .byte(offset))
        }
    }

    /// Decodes the count that follows a marker whose low nibble is `nibble`: the nibble itself, or for
    /// `0xF` the integer object that follows. Returns the count and where the payload starts.
    func count(nibble: UInt8, markerAt offset: Int) throws -> (count: Int, payload: Int) {
        if nibble < 15 { return (Int(nibble), offset + 1) }
        let intAt = offset + 1
        try checkRange(intAt, 1, what: "the count of the object")
        let m = bytes[intAt]
        guard m & 0xF0 == 0x10, m & 0x0F <= 3 else {
            throw PlistError(.malformed, "binary plist: count after marker 0x\(String(bytes[offset], radix: 16)) is not an integer of 1 to 8 bytes (marker 0x\(String(m, radix: 16)))", at: .byte(intAt))
        }
        let width = 1 << Int(m & 0x0F)
        try checkRange(intAt + 1, width, what: "the count of the object")
        let v = Self.readUInt(bytes, at: intAt + 1, width: width)
        guard v <= UInt64(Int32.max) else {
            throw PlistError(.outOfRange, "binary plist: count \(v) is larger than the file", at: .byte(intAt))
        }
        return (Int(v), intAt + 1 + width)
    }

    /// Reads the object reference at position `i` of the reference list starting at `start`.
    ///
    /// An 8-byte reference may not fit in an `Int`; it is clamped to `Int.max`, which no object
    /// table reaches, so `offset(of:referencedAt:)` refuses it as out of range like any other.
    @inline(__always)
    func ref(at start: Int, _ i: Int) -> Int {
        Int(clamping: Self.readUInt(bytes, at: start + i * objectRefSize, width: objectRefSize))
    }
}

extension UnsafeRawPointer {
    /// The big-endian unsigned integer of `width` bytes (1 to 8) at `offset`: how a binary property
    /// list stores its offsets, references, counts and numbers. Unchecked: the readers that read in
    /// place (`BinaryPlistTreeBuilder`, `BinaryDecodingStore`) read only what the walk has checked.
    @inline(__always)
    func bigEndianUInt(at offset: Int, width: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<width { v = v << 8 | UInt64(load(fromByteOffset: offset + i, as: UInt8.self)) }
        return v
    }

    /// The byte at `offset`, unchecked (see `bigEndianUInt(at:width:)`).
    @inline(__always)
    func byte(at offset: Int) -> UInt8 { load(fromByteOffset: offset, as: UInt8.self) }
}
