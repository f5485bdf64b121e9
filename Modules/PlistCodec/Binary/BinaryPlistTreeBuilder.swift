import Foundation

/// Builds the `PlistValue` of a `bplist00` file that `BinaryPlistWalker` has checked, reading the
/// object table in place without checking it again.
///
/// The walk (with `BinaryPlistShareMarks` as its sink) applies every check and throws every error,
/// exactly as the reader always has; it also notes which objects are referenced more than once.
/// Only those are kept once built, so a key or string that the writer shared is decoded once and
/// the copies share its storage, and a shared container is shared, not built again (a file cannot
/// make the reader do exponential work). Every other object is built where it is met and kept by
/// its parent alone.
struct BinaryPlistTreeBuilder {
    private let doc: BinaryPlistFile<UnsafeRawBufferPointer>
    private let base: UnsafeRawPointer
    private let tableOffset: Int
    private let offsetSize: Int
    private let refSize: Int
    /// Per object: 0 if referenced once, 1 if shared and not built yet, `2 + i` once built and kept
    /// at `kept[i]`.
    private var slots: [Int32]
    private var kept: [PlistValue] = []
    /// The key lists of recent dictionaries, by their references, and whether their keys are all
    /// different: records of one type repeat one list.
    private var keyLists: [(refs: [Int], keys: [String], unique: Bool)] = []
    private var nextKeyList = 0

    /// A builder for `doc`, whose every object reachable from the top one `marks` has walked.
    init(doc: BinaryPlistFile<UnsafeRawBufferPointer>, marks: BinaryPlistShareMarks) {
        self.doc = doc
        // A checked file has at least one object and a header, so its bytes have an address.
        base = doc.bytes.baseAddress!
        tableOffset = doc.offsetTableOffset
        offsetSize = doc.offsetIntSize
        refSize = doc.objectRefSize
        slots = marks.slots
    }

    /// The value of object `index`.
    mutating func value(_ index: Int) -> PlistValue {
        let slot = slots[index]
        if slot >= 2 { return kept[Int(slot) - 2] }
        let built = build(index)
        if slot == 1 {
            slots[index] = Int32(kept.count + 2)
            kept.append(built)
        }
        return built
    }

    @inline(__always)
    private func offset(_ index: Int) -> Int {
        Int(truncatingIfNeeded: base.bigEndianUInt(at: tableOffset + index * offsetSize, width: offsetSize))
    }

    @inline(__always)
    private func ref(_ start: Int, _ i: Int) -> Int {
        Int(truncatingIfNeeded: base.bigEndianUInt(at: start + i * refSize, width: refSize))
    }

    /// The count after the marker at `offset` and where the payload starts.
    @inline(__always)
    private func count(at offset: Int) -> (count: Int, payload: Int) {
        let nibble = base.byte(at: offset) & 0x0F
        if nibble < 15 { return (Int(nibble), offset + 1) }
        let width = 1 << Int(base.byte(at: offset + 1) & 0x0F)
        return (Int(truncatingIfNeeded: base.bigEndianUInt(at: offset + 2, width: width)), offset + 2 + width)
    }

    private mutating func build(_ index: Int) -> PlistValue {
        let at = offset(index)
        let marker = base.byte(at: at)
        switch marker >> 4 {
        case 0x0:
            return .bool(marker == 0x09)
        case 0x1:
            let width = 1 << Int(marker & 0x0F)
            if width == 16 {
                let hi = base.bigEndianUInt(at: at + 1, width: 8), lo = base.bigEndianUInt(at: at + 9, width: 8)
                return .integer(PlistInteger(Int128(truncatingIfNeeded: UInt128(hi) << 64 | UInt128(lo)), isWide: true))
            }
            let u = base.bigEndianUInt(at: at + 1, width: width)
            // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
            return .integer(PlistInteger(width == 8 ? Int128(Int64(bitPattern: u)) : Int128(u), isWide: false))
        case 0x2:
            if marker & 0x0F == 2 { return .float(Float(bitPattern: UInt32(truncatingIfNeeded: base.bigEndianUInt(at: at + 1, width: 4)))) }
            return .real(Double(bitPattern: base.bigEndianUInt(at: at + 1, width: 8)))
        case 0x3:
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: base.bigEndianUInt(at: at + 1, width: 8))))
        case 0x4:
            let (n, start) = count(at: at)
            return .data(Data(bytes: base + start, count: n))
        case 0x5:
            let (n, start) = count(at: at)
            let bytes = UnsafeRawBufferPointer(start: base + start, count: n)
            if BinaryStringText.isASCII(bytes) { return .string(String(decoding: bytes, as: UTF8.self)) }
            // Bytes above 0x7F in an "ASCII" string (a strict walk refused them): the scalar reader's
            // Latin-1 reading, as Foundation's.
            return (try? BinaryScalar.read(doc, at: at)) ?? .string("")
        case 0x6:
            let (n, start) = count(at: at)
            return .string(BinaryStringText.utf16BigEndian(base + start, count: n))
        case 0x8:
            return .uid(base.bigEndianUInt(at: at + 1, width: Int(marker & 0x0F) + 1))
        case 0xA:
            let (n, start) = count(at: at)
            return .array([PlistValue](unsafeUninitializedCapacity: n) { buffer, initialized in
                for i in 0..<n {
                    (buffer.baseAddress! + i).initialize(to: value(ref(start, i)))
                    initialized = i + 1
                }
            })
        default:
            return .dictionary(dictionary(at))
        }
    }

    private mutating func dictionary(_ at: Int) -> PlistDictionary {
        let (n, start) = count(at: at)
        let (keys, unique) = keyList(start: start, count: n)
        let values = [PlistValue](unsafeUninitializedCapacity: n) { buffer, initialized in
            for i in 0..<n {
                (buffer.baseAddress! + i).initialize(to: value(ref(start, n + i)))
                initialized = i + 1
            }
        }
        if unique { return PlistDictionary(uniqueKeys: keys, values: values) }
        return PlistDictionary(keys, values)
    }

    /// The keys of the dictionary whose references start at `start`, and whether no two have the
    /// same scalars. A list with the same references as one of the last few is that list again:
    /// its array is shared, not built again.
    private mutating func keyList(start: Int, count n: Int) -> (keys: [String], unique: Bool) {
        let remembered = n <= 64
        if remembered {
            search: for entry in keyLists where entry.refs.count == n {
                for i in 0..<n where entry.refs[i] != ref(start, i) { continue search }
                return (entry.keys, entry.unique)
            }
        }
        let keys = [String](unsafeUninitializedCapacity: n) { buffer, initialized in
            for i in 0..<n {
                // The walk checked that every key is a string.
                guard case .string(let key) = value(ref(start, i)) else { fatalError("checked key is not a string") }
                (buffer.baseAddress! + i).initialize(to: key)
                initialized = i + 1
            }
        }
        let unique = Self.unique(keys)
        if remembered {
            let entry = (refs: (0..<n).map { ref(start, $0) }, keys: keys, unique: unique)
            if keyLists.count < 8 {
                keyLists.append(entry)
            } else {
                keyLists[nextKeyList] = entry
                nextKeyList = (nextKeyList + 1) % 8
            }
        }
        return (keys, unique)
    }

    private static func unique(_ keys: [String]) -> Bool {
        if keys.count < 2 { return true }
        if keys.count <= 16 {
            for i in keys.indices {
                for j in (i + 1)..<keys.count where ExactKey.same(keys[i], keys[j]) { return false }
            }
            return true
        }
        var seen = Set<ExactString>(minimumCapacity: keys.count)
        for key in keys where !seen.insert(ExactString(value: key)).inserted { return false }
        return true
    }
}

/// The sink that checks a binary property list for `BinaryPlistTreeBuilder`: `BinaryPlistValidator`'s
/// walk (the same checks and errors, nothing built), noting the objects referenced more than once.
struct BinaryPlistShareMarks: BinaryPlistSink {
    /// 1 for an object referenced more than once, else 0 (`BinaryPlistTreeBuilder`'s slots).
    private(set) var slots: [Int32]

    init(objectCount: Int) {
        slots = [Int32](repeating: 0, count: objectCount)
    }

    static var wantsScalarValues: Bool { false }
    var expandsSharedObjects: Bool { false }
    func scalar(_ value: PlistValue, object: Int) {}
    mutating func shared(object: Int) { slots[object] = 1 }
    func openContainer(object: Int, isDictionary: Bool, count: Int) {}
    func valueOrder(count: Int) -> Range<Int> { 0..<count }
    func closeContainer(object: Int) {}
}

/// Strings from a binary property list's bytes.
enum BinaryStringText {
    /// Whether every byte is below 0x80, eight at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// `count` big-endian UTF-16 code units at `p`, each unpaired surrogate read as U+FFFD (as
    /// `String(decoding:as: UTF16.self)` reads it), transcoded straight into the string's storage.
    static func utf16BigEndian(_ p: UnsafeRawPointer, count n: Int) -> String {
        @inline(__always) func unit(_ i: Int) -> UInt32 {
            UInt32(p.load(fromByteOffset: 2 * i, as: UInt8.self)) << 8 | UInt32(p.load(fromByteOffset: 2 * i + 1, as: UInt8.self))
        }
        // At most 3 UTF-8 bytes per unit (a pair of units is 4 bytes).
        return String(unsafeUninitializedCapacity: max(3 * n, 1)) { out in
            var o = 0
            var i = 0
            while i < n {
                var c = unit(i)
                i += 1
                if c < 0x80 {
                    out[o] = UInt8(c)
                    o += 1
                    continue
                }
                if c < 0x800 {
                    out[o] = UInt8(0xC0 | c >> 6)
                    out[o + 1] = UInt8(0x80 | c & 0x3F)
                    o += 2
                    continue
                }
                if c & 0xF800 == 0xD800 {
                    if c < 0xDC00, i < n, unit(i) & 0xFC00 == 0xDC00 {
                        c = 0x10000 + ((c - 0xD800) << 10 | (unit(i) - 0xDC00))
                        i += 1
                        out[o] = UInt8(0xF0 | c >> 18)
                        out[o + 1] = UInt8(0x80 | c >> 12 & 0x3F)
                        out[o + 2] = UInt8(0x80 | c >> 6 & 0x3F)
                        out[o + 3] = UInt8(0x80 | c & 0x3F)
                        o += 4
                        continue
                    }
                    c = 0xFFFD
                }
                out[o] = UInt8(0xE0 | c >> 12)
                out[o + 1] = UInt8(0x80 | c >> 6 & 0x3F)
                out[o + 2] = UInt8(0x80 | c & 0x3F)
                o += 3
            }
            return o
        }
    }
}
