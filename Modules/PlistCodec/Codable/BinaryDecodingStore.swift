import Foundation

/// `FlatDecoder`'s view of a binary property list: the object table read in place.
///
/// The store owns a copy of the file's bytes (decoders that a `Decodable` keeps cannot outlive
/// them) and is made only after `BinaryPlistWalker` has checked every object reachable from the
/// top one, so offsets, counts, references and markers are read without checks here. Nothing is
/// built ahead: a string or data object becomes a Swift value when a `Decodable` asks for it.
final class BinaryDecodingStore: PlistDecodingStore {
    private let storage: UnsafeMutableRawBufferPointer
    let doc: BinaryPlistFile<UnsafeRawBufferPointer>
    private let base: UnsafeRawPointer
    private let tableOffset: Int
    private let offsetSize: Int
    private let refSize: Int
    /// The last few key lists found simple (or not), by their references: every record of one type
    /// has the same keys, and an encoder that shares strings gives them the same objects.
    @exclusivity(unchecked) private var simpleKeyLists: [(refs: [Int], simple: Bool)] = []
    @exclusivity(unchecked) private var nextSimpleSlot = 0

    /// Copies `data` and checks it as the tree reader would, throwing the same `PlistError`.
    ///
    /// - Throws: `PlistError` from the trailer (the caller then tries the OpenStep fallback, as the
    ///   reader does) or from the walk of the objects.
    init(copying data: Data, options: PlistReadOptions) throws {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 8)
        data.withUnsafeBytes { storage.copyMemory(from: $0) }
        self.storage = storage
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<data.count])
        do {
            doc = try BinaryPlistFile(bytes: bytes, strict: options.strict)
        } catch {
            storage.deallocate()
            throw error
        }
        base = UnsafeRawPointer(storage.baseAddress!)
        tableOffset = doc.offsetTableOffset
        offsetSize = doc.offsetIntSize
        refSize = doc.objectRefSize
    }

    deinit { storage.deallocate() }

    /// Checks every object reachable from the top one, as `BinaryPlistReader` does.
    func validate(_ options: PlistReadOptions) throws {
        try BinaryPlistValidator.validate(doc, options: options)
    }

    var topObject: Int { doc.topObject }

    @inline(__always)
    private func offset(_ node: Int) -> Int {
        Int(truncatingIfNeeded: base.bigEndianUInt(at: tableOffset + node * offsetSize, width: offsetSize))
    }

    /// The count after the marker at `offset` and where the payload starts (checked by the walk).
    @inline(__always)
    private func count(at offset: Int) -> (count: Int, payload: Int) {
        let nibble = base.byte(at: offset) & 0x0F
        if nibble < 15 { return (Int(nibble), offset + 1) }
        let width = 1 << Int(base.byte(at: offset + 1) & 0x0F)
        return (Int(truncatingIfNeeded: base.bigEndianUInt(at: offset + 2, width: width)), offset + 2 + width)
    }

    func kind(_ node: Int) -> FlatKind {
        let marker = base.byte(at: offset(node))
        switch marker >> 4 {
        case 0x0: return .bool
        case 0x1: return .integer
        case 0x2: return marker == 0x22 ? .float : .real
        case 0x3: return .date
        case 0x4: return .data
        case 0x5, 0x6: return .string
        case 0x8: return .uid
        case 0xA: return .array
        default: return .dictionary
        }
    }

    func container(_ node: Int) -> FlatContainer {
        let (n, start) = count(at: offset(node))
        return FlatContainer(start: start, count: n)
    }

    @inline(__always)
    func element(_ container: FlatContainer, _ i: Int) -> Int {
        Int(truncatingIfNeeded: base.bigEndianUInt(at: container.start + i * refSize, width: refSize))
    }

    func keysAreSimple(_ node: Int, _ container: FlatContainer) -> Bool {
        let n = container.count
        if n > 64 { return computeSimple(container) }
        search: for entry in simpleKeyLists where entry.refs.count == n {
            for i in 0..<n where entry.refs[i] != element(container, i) { continue search }
            return entry.simple
        }
        let simple = computeSimple(container)
        let refs = (0..<n).map { element(container, $0) }
        if simpleKeyLists.count < 4 {
            simpleKeyLists.append((refs, simple))
        } else {
            simpleKeyLists[nextSimpleSlot] = (refs, simple)
            nextSimpleSlot = (nextSimpleSlot + 1) & 3
        }
        return simple
    }

    /// All keys ASCII strings (marker `5n`, no byte above 0x7F) and no two with the same bytes.
    private func computeSimple(_ container: FlatContainer) -> Bool {
        let n = container.count
        var keys: [UnsafeRawBufferPointer] = []
        keys.reserveCapacity(n)
        for i in 0..<n {
            let at = offset(element(container, i))
            guard base.byte(at: at) >> 4 == 0x5 else { return false }
            let (length, start) = count(at: at)
            let key = UnsafeRawBufferPointer(start: base + start, count: length)
            for b in key where b >= 0x80 { return false }
            keys.append(key)
        }
        if n <= 16 {
            for i in 0..<n {
                for j in (i + 1)..<max(i + 1, n) where keys[i].elementsEqual(keys[j]) { return false }
            }
            return true
        }
        var seen = Set<String>(minimumCapacity: n)
        for key in keys where !seen.insert(String(decoding: key, as: UTF8.self)).inserted { return false }
        return true
    }

    func asciiKey(_ node: Int, equals _: String, bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        let (length, start) = count(at: offset(node))
        guard length == name.count else { return false }
        guard length > 0 else { return true }
        return memcmp(base + start, name.baseAddress!, length) == 0
    }

    func sameString(_ a: Int, _ b: Int) -> Bool {
        a == b || ExactKey.same(string(a), string(b))
    }

    func isNullMarker(_ node: Int) -> Bool {
        let at = offset(node)
        // "$null" in ASCII; a UTF-16 string is never canonically equal to it (no character outside
        // ASCII decomposes to "$", "n", "u" or "l").
        return base.byte(at: at) == 0x55 && memcmp(base + at + 1, "$null", 5) == 0
    }

    func string(_ node: Int) -> String {
        let at = offset(node)
        let (n, start) = count(at: at)
        if base.byte(at: at) >> 4 == 0x5 {
            let bytes = UnsafeRawBufferPointer(start: base + start, count: n)
            for b in bytes where b >= 0x80 { return slowString(at) }
            return String(decoding: bytes, as: UTF8.self)
        }
        return withUnsafeTemporaryAllocation(of: UInt16.self, capacity: max(n, 1)) { units in
            for i in 0..<n { units[i] = UInt16(base.byte(at: start + 2 * i)) << 8 | UInt16(base.byte(at: start + 2 * i + 1)) }
            // A lone surrogate becomes U+FFFD, as the tree reader reads it (strict reading refused it).
            return String(decoding: UnsafeBufferPointer(rebasing: units[0..<n]), as: UTF16.self)
        }
    }

    /// An "ASCII" string with bytes above 0x7F, read as the tree reader reads it.
    private func slowString(_ at: Int) -> String {
        if case .string(let s)? = try? BinaryScalar.read(doc, at: at) { return s }
        return ""
    }

    func integer(_ node: Int) -> Int128 {
        let at = offset(node)
        let width = 1 << Int(base.byte(at: at) & 0x0F)
        if width == 16 {
            let hi = base.bigEndianUInt(at: at + 1, width: 8), lo = base.bigEndianUInt(at: at + 9, width: 8)
            return Int128(truncatingIfNeeded: UInt128(hi) << 64 | UInt128(lo))
        }
        let u = base.bigEndianUInt(at: at + 1, width: width)
        // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
        return width == 8 ? Int128(Int64(bitPattern: u)) : Int128(u)
    }

    func real(_ node: Int) -> Double {
        let at = offset(node)
        if base.byte(at: at) == 0x22 { return Double(float(node)) }
        return Double(bitPattern: base.bigEndianUInt(at: at + 1, width: 8))
    }

    func float(_ node: Int) -> Float {
        Float(bitPattern: UInt32(truncatingIfNeeded: base.bigEndianUInt(at: offset(node) + 1, width: 4)))
    }

    func bool(_ node: Int) -> Bool { base.byte(at: offset(node)) == 0x09 }

    func date(_ node: Int) -> Double { Double(bitPattern: base.bigEndianUInt(at: offset(node) + 1, width: 8)) }

    func data(_ node: Int) -> Data {
        let (n, start) = count(at: offset(node))
        return Data(bytes: base + start, count: n)
    }
}
