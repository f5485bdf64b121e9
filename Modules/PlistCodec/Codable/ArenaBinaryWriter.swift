import Foundation

/// Writes an `EncodingArena` as a `bplist00` file, byte for byte as `PropertyListEncoder` does
/// (`BinaryPlistWriter`'s `.foundation` layout, which `PlistValue`s are written with).
///
/// Objects are numbered depth-first: a container, then (for a dictionary) all its keys, then all its
/// values. Equal scalars of the same kind are written once (`ArenaShareTable`); containers never
/// are; a `superEncoder()` subtree gets a sharing table of its own.
struct ArenaBinaryWriter {
    let arena: EncodingArena

    func write(root: Int32) -> Data {
        var table = ArenaObjectTable(arena: arena)
        table.flatten(root)
        return table.serialize()
    }
}

/// An object of the file: an arena node, or a dictionary key (an index in the arena's strings).
private struct ObjectRef {
    /// `>= 0`: a node; `< 0`: the key string `~raw`.
    var raw: Int32
    var isKey: Bool { raw < 0 }
}

private struct ArenaObjectTable {
    let arena: EncodingArena
    var objects: [ObjectRef] = []
    /// For each object, where its child references start in `refs` and how many there are
    /// (containers only; a dictionary has two per entry).
    var refStart: [Int32] = []
    var refCount: [Int32] = []
    var refs: [Int32] = []
    var shared: ArenaShareTable
    /// Entries of the containers being flattened, innermost last.
    var scratch: [EncodingArena.Entry] = []
    private let seed = UInt64.random(in: 0...UInt64.max)

    init(arena: EncodingArena) {
        self.arena = arena
        shared = ArenaShareTable(seed: seed)
        objects.reserveCapacity(arena.nodes.count + arena.strings.count / 4)
        refStart.reserveCapacity(arena.nodes.count)
        refCount.reserveCapacity(arena.nodes.count)
    }

    private mutating func add(_ ref: ObjectRef) -> Int32 {
        objects.append(ref)
        refStart.append(0)
        refCount.append(0)
        return Int32(objects.count - 1)
    }

    @discardableResult
    mutating func flatten(_ node: Int32) -> Int32 {
        let n = arena.nodes[Int(node)]
        switch n.kind {
        case .array, .dictionary:
            let me = add(ObjectRef(raw: node))
            let base = scratch.count
            arena.entries(of: node, into: &scratch)
            let count = scratch.count - base
            let start = refs.count
            refStart[Int(me)] = Int32(start)
            refCount[Int(me)] = Int32(n.kind == .array ? count : 2 * count)
            if n.kind == .array {
                refs.append(contentsOf: repeatElement(0, count: count))
                for i in 0..<count { refs[start + i] = flatten(scratch[base + i].value) }
            } else {
                refs.append(contentsOf: repeatElement(0, count: 2 * count))
                for i in 0..<count { refs[start + i] = key(scratch[base + i].key) }
                for i in 0..<count { refs[start + count + i] = flatten(scratch[base + i].value) }
            }
            scratch.removeSubrange(base...)
            return me
        case .null:
            if shared.nullIndex >= 0 { return shared.nullIndex }
            shared.nullIndex = add(ObjectRef(raw: node))
            return shared.nullIndex
        case .bool:
            let existing = n.bits != 0 ? shared.trueIndex : shared.falseIndex
            if existing >= 0 { return existing }
            let me = add(ObjectRef(raw: node))
            if n.bits != 0 { shared.trueIndex = me } else { shared.falseIndex = me }
            return me
        case .date where Double(bitPattern: n.bits).isNaN:
            // A NaN date never equals anything, itself included, so Foundation writes each one anew.
            return add(ObjectRef(raw: node))
        case .int, .wideInt, .float, .double, .date, .data, .string:
            if let found = shared.findOrInsert(node: node, newIndex: Int32(objects.count), arena: arena) { return found }
            return add(ObjectRef(raw: node))
        case .isolated:
            let outer = shared
            shared = ArenaShareTable(seed: seed)
            defer { shared = outer }
            return flatten(n.first)
        }
    }

    private mutating func key(_ string: Int32) -> Int32 {
        if let found = shared.findOrInsert(key: string, newIndex: Int32(objects.count), arena: arena) { return found }
        return add(ObjectRef(raw: ~string))
    }

    func serialize() -> Data {
        let out = ByteWriter(capacity: 64 + objects.count * 8)
        out.append("bplist00")
        let numObjects = objects.count
        let refSize = BinaryPlistBytes.byteWidth(UInt64(numObjects), mode: .foundation)
        var offsets = [Int](repeating: 0, count: numObjects)
        for i in 0..<numObjects {
            offsets[i] = out.count
            writeObject(i, refSize: refSize, to: out)
        }
        BinaryPlistBytes.writeTrailer(offsets: offsets, numObjects: numObjects, refSize: refSize, mode: .foundation, to: out)
        return out.data()
    }

    private func writeObject(_ i: Int, refSize: Int, to out: ByteWriter) {
        let ref = objects[i]
        if ref.isKey { return BinaryPlistBytes.writeString(arena.strings[Int(~ref.raw)], to: out) }
        let n = arena.nodes[Int(ref.raw)]
        switch n.kind {
        case .null: BinaryPlistBytes.writeString("$null", to: out)
        case .bool: out.append(n.bits != 0 ? 0x09 : 0x08)
        case .int: BinaryPlistBytes.writeInt(Int64(bitPattern: n.bits), to: out)
        case .wideInt:
            out.append(0x14)
            out.appendBigEndian(UInt128(truncatingIfNeeded: arena.wideInts[Int(n.bits)]), width: 16)
        case .float:
            out.append(0x22)
            out.appendBigEndian(UInt32(truncatingIfNeeded: n.bits), width: 4)
        case .double:
            out.append(0x23)
            out.appendBigEndian(n.bits, width: 8)
        case .date:
            out.append(0x33)
            out.appendBigEndian(n.bits, width: 8)
        case .data:
            let d = arena.datas[Int(n.bits)]
            BinaryPlistBytes.writeMarker(0x40, count: d.count, to: out)
            out.append(contentsOf: d)
        case .string: BinaryPlistBytes.writeString(arena.strings[Int(n.bits)], to: out)
        case .array, .dictionary:
            let start = Int(refStart[i]), total = Int(refCount[i])
            BinaryPlistBytes.writeMarker(n.kind == .array ? 0xA0 : 0xD0, count: n.kind == .array ? total : total / 2, to: out)
            out.ensure(total * refSize)
            for r in refs[start..<start + total] { out.appendBigEndian(UInt64(r), width: refSize) }
        case .isolated:
            break // never an object: flattening unwraps it
        }
    }
}
