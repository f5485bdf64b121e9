import Foundation

/// Writes `bplist00` files, byte for byte as `PropertyListEncoder` (`.foundation`) or as
/// CoreFoundation's writer (`.coreFoundation`) lays them out.
///
/// Objects are numbered depth-first: a container, then (for a dictionary) all its keys, then all its
/// values. Equal scalars of the same kind are written once; containers never are. See
/// `Docs/PlistCodec.md` and the format notes for the rules each mode follows.
struct BinaryPlistWriter {
    let mode: PlistWriteMode

    func write(_ root: PlistNode) throws -> Data {
        var table = ObjectTable(mode: mode)
        table.flatten(root)
        return table.serialize()
    }
}

struct ExactString: Hashable {
    let value: String

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        let a = lhs.value.utf8, b = rhs.value.utf8
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        if let r = a.withContiguousStorageIfAvailable({ pa in
            b.withContiguousStorageIfAvailable { pb in memcmp(UnsafeRawPointer(pa.baseAddress!), UnsafeRawPointer(pb.baseAddress!), pa.count) == 0 }
        }), let r { return r }
        return a.elementsEqual(b)
    }

    func hash(into hasher: inout Hasher) {
        let u = value.utf8
        if u.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for b in u { hasher.combine(b) }
        }
    }
}

private struct ObjectTable {
    let mode: PlistWriteMode
    /// Objects in index order (CF mode may hold unreferenced duplicate booleans).
    var objects: [PlistNode] = []
    /// For each object, where its child references start in `refs` (containers only).
    var refStart: [Int] = []
    var refs: [Int] = []
    var shared: ShareTable
    private let seed = UInt64.random(in: 0...UInt64.max)

    init(mode: PlistWriteMode) {
        self.mode = mode
        shared = ShareTable(seed: seed)
    }

    private mutating func add(_ node: PlistNode) -> Int {
        objects.append(node)
        refStart.append(0)
        return objects.count - 1
    }

    /// Returns the object index for a shareable scalar, adding it the first time.
    private mutating func sharedIndex(_ node: PlistNode) -> Int {
        if let i = shared.findOrInsert(node, newIndex: objects.count, objects: objects) { return i }
        return add(node)
    }

    /// Booleans and `nil` are one object each; CoreFoundation appends every repeated boolean again
    /// (references still use the first).
    private mutating func singletonIndex(_ existing: Int, _ node: PlistNode, isBool: Bool) -> (index: Int, isNew: Bool) {
        if existing >= 0 {
            if isBool && mode == .coreFoundation { _ = add(node) }
            return (existing, false)
        }
        return (add(node), true)
    }

    @discardableResult
    mutating func flatten(_ node: PlistNode) -> Int {
        switch node {
        case .array(let box):
            let me = add(node)
            let start = refs.count
            refStart[me] = start
            refs.append(contentsOf: repeatElement(0, count: box.items.count))
            for (i, item) in box.items.enumerated() { refs[start + i] = flatten(item) }
            return me
        case .dictionary(let box):
            let me = add(node)
            let start = refs.count
            let n = box.count
            refStart[me] = start
            refs.append(contentsOf: repeatElement(0, count: 2 * n))
            let entries = box.entries
            for i in 0..<n { refs[start + i] = flatten(.string(entries[i].key)) }
            for i in 0..<n { refs[start + n + i] = flatten(entries[i].value) }
            return me
        case .null:
            let r = singletonIndex(shared.nullIndex, node, isBool: false)
            shared.nullIndex = r.index
            return r.index
        case .bool(let b):
            let r = singletonIndex(b ? shared.trueIndex : shared.falseIndex, node, isBool: true)
            if b { shared.trueIndex = r.index } else { shared.falseIndex = r.index }
            return r.index
        case .date(let t) where t.isNaN:
            // A NaN date never equals anything, itself included, so Foundation writes each one anew.
            return add(node)
        case .int, .wideInt, .float, .double, .date, .data, .string:
            return sharedIndex(node)
        case .uid: return add(node)
        case .isolated(let inner):
            let outer = shared
            shared = ShareTable(seed: seed)
            defer { shared = outer }
            return flatten(inner)
        }
    }

    func serialize() -> Data {
        let out = ByteWriter(capacity: 64 + objects.count * 8)
        out.append("bplist00")
        let numObjects = objects.count
        let refSize = byteWidth(UInt64(numObjects))
        var offsets = [Int](repeating: 0, count: numObjects)
        for i in 0..<numObjects {
            offsets[i] = out.count
            writeObject(i, refSize: refSize, to: out)
        }
        let tableOffset = out.count
        let offsetSize = byteWidth(UInt64(tableOffset))
        out.ensure(offsets.count * offsetSize + 32)
        for o in offsets { out.appendBigEndian(UInt64(o), width: offsetSize) }
        out.append(repeating: 0, count: 6)
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        out.appendBigEndian(UInt64(numObjects), width: 8)
        out.appendBigEndian(UInt64(0), width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return out.data()
    }

    /// The byte width for offsets and references: the minimum for Foundation, the next power of two
    /// (1, 2, 4, 8) for CoreFoundation.
    private func byteWidth(_ value: UInt64) -> Int {
        var n = max(1, (64 - value.leadingZeroBitCount + 7) / 8)
        if mode == .coreFoundation { while n != 1 && n != 2 && n != 4 && n != 8 { n += 1 } }
        return n
    }

    private func writeObject(_ i: Int, refSize: Int, to out: ByteWriter) {
        switch objects[i] {
        case .null: writeASCII("$null", to: out)
        case .bool(let b): out.append(b ? 0x09 : 0x08)
        case .int(let v): writeInt(v, to: out)
        case .wideInt(let v):
            out.append(0x14)
            out.appendBigEndian(UInt128(truncatingIfNeeded: v), width: 16)
        case .float(let f):
            out.append(0x22)
            out.appendBigEndian(f.bitPattern, width: 4)
        case .double(let d):
            out.append(0x23)
            out.appendBigEndian(d.bitPattern, width: 8)
        case .date(let t):
            out.append(0x33)
            out.appendBigEndian(t.bitPattern, width: 8)
        case .data(let d):
            writeMarker(0x40, count: d.count, to: out)
            out.append(contentsOf: d)
        case .string(let s): writeString(s, to: out)
        case .uid(let u):
            let width = max(1, (64 - u.leadingZeroBitCount + 7) / 8)
            out.append(0x80 | UInt8(width - 1))
            out.appendBigEndian(u, width: width)
        case .array(let box):
            let n = box.items.count
            writeMarker(0xA0, count: n, to: out)
            writeRefs(from: refStart[i], count: n, width: refSize, to: out)
        case .dictionary(let box):
            let n = box.count
            writeMarker(0xD0, count: n, to: out)
            writeRefs(from: refStart[i], count: 2 * n, width: refSize, to: out)
        case .isolated:
            break // never stored in `objects`: flattening unwraps it
        }
    }

    private func writeRefs(from start: Int, count: Int, width: Int, to out: ByteWriter) {
        out.ensure(count * width)
        for r in refs[start..<start + count] { out.appendBigEndian(UInt64(r), width: width) }
    }

    private func writeMarker(_ marker: UInt8, count: Int, to out: ByteWriter) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            writeInt(Int64(count), to: out)
        }
    }

    private func writeInt(_ v: Int64, to out: ByteWriter) {
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

    private func writeASCII(_ s: StaticString, to out: ByteWriter) {
        writeMarker(0x50, count: s.utf8CodeUnitCount, to: out)
        out.append(s)
    }

    private func writeString(_ s: String, to out: ByteWriter) {
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
