import Foundation

/// Writes `bplist00` files, byte for byte as `PropertyListEncoder` (`.foundation`) or as
/// CoreFoundation's writer (`.coreFoundation`) lays them out.
///
/// Objects are numbered depth-first: a container, then (for a dictionary) all its keys, then all its
/// values. Equal scalars of the same kind are written once; containers never are. See
/// <doc:FormatsAndWriteModes> and the format notes for the rules each mode follows.
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
        let refSize = BinaryPlistBytes.byteWidth(UInt64(numObjects), mode: mode)
        var offsets = [Int](repeating: 0, count: numObjects)
        for i in 0..<numObjects {
            offsets[i] = out.count
            writeObject(i, refSize: refSize, to: out)
        }
        BinaryPlistBytes.writeTrailer(offsets: offsets, numObjects: numObjects, refSize: refSize, mode: mode, to: out)
        return out.data()
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
        BinaryPlistBytes.writeMarker(marker, count: count, to: out)
    }

    private func writeInt(_ v: Int64, to out: ByteWriter) { BinaryPlistBytes.writeInt(v, to: out) }

    private func writeASCII(_ s: StaticString, to out: ByteWriter) {
        writeMarker(0x50, count: s.utf8CodeUnitCount, to: out)
        out.append(s)
    }

    private func writeString(_ s: String, to out: ByteWriter) { BinaryPlistBytes.writeString(s, to: out) }
}
