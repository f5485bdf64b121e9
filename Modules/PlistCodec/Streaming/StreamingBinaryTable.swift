import Foundation

/// A binary property list's object table built incrementally, with each scalar kept only as the
/// bytes it will be written as: the layout `BinaryPlistWriter` gives, in a fraction of its memory.
///
/// Objects are numbered as `BinaryPlistWriter` numbers them (a container, then a dictionary's keys,
/// then its values, depth first; equal scalars of one kind written once; in CoreFoundation mode every
/// repeated Boolean appended again). Arrays can be opened before their elements are known
/// (`openArray`/`closeArray`), which is what lets a reader hand over a long array element by element.
/// Sharing compares the encoded bytes, which is the writer's exact equality (same kind, same bits,
/// same UTF-8).
struct StreamingBinaryTable {
    let mode: PlistWriteMode
    /// Scalar encodings, in object order.
    var arena: [UInt8] = []
    /// Per object: its scalar's start in `arena`, or `-(container + 1)`.
    var info: [Int] = []
    var containerRefStart: [Int] = []
    var containerCount: [Int] = []
    var containerIsDict: [Bool] = []
    var refs: [UInt32] = []
    /// The element references of each open array, innermost last.
    private var openArrays: [(object: Int, container: Int, elements: [UInt32])] = []
    private var trueIndex = -1
    private var falseIndex = -1
    var slots: [UInt32] = Array(repeating: 0, count: 1 << 16)
    private var used = 0
    private var scratch: [UInt8] = []

    init(mode: PlistWriteMode) { self.mode = mode }

    var objectCount: Int { info.count }

    // MARK: Building

    /// Adds an array whose elements follow (each `add`ed or opened while it is innermost).
    mutating func openArray() {
        let me = addContainer(isDict: false)
        openArrays.append((me.object, me.container, []))
    }

    /// Ends the innermost open array.
    mutating func closeArray() {
        guard let array = openArrays.popLast() else { return }
        containerRefStart[array.container] = refs.count
        containerCount[array.container] = array.elements.count
        refs.append(contentsOf: array.elements)
    }

    /// Adds a whole value as the next element of the innermost open array (or as the root).
    mutating func add(_ value: PlistValue) {
        let index = flatten(value)
        if !openArrays.isEmpty { openArrays[openArrays.count - 1].elements.append(UInt32(index)) }
    }

    private mutating func addContainer(isDict: Bool) -> (object: Int, container: Int) {
        let container = containerCount.count
        containerRefStart.append(0)
        containerCount.append(0)
        containerIsDict.append(isDict)
        info.append(-(container + 1))
        if let last = openArrays.indices.last {
            // An array opened inside an open array is that array's next element.
            openArrays[last].elements.append(UInt32(info.count - 1))
        }
        return (info.count - 1, container)
    }

    private mutating func flatten(_ value: PlistValue) -> Int {
        switch value {
        case .array(let items):
            let me = addDetachedContainer(isDict: false, count: items.count)
            for (i, item) in items.enumerated() { refs[containerRefStart[me.container] + i] = UInt32(flatten(item)) }
            return me.object
        case .dictionary(let dictionary):
            let n = dictionary.count
            let me = addDetachedContainer(isDict: true, count: 2 * n)
            containerCount[me.container] = n
            let start = containerRefStart[me.container]
            for i in 0..<n { refs[start + i] = UInt32(flatten(.string(dictionary.keys[i]))) }
            for i in 0..<n { refs[start + n + i] = UInt32(flatten(dictionary.values[i])) }
            return me.object
        case .bool(let b):
            let existing = b ? trueIndex : falseIndex
            if existing >= 0 {
                if mode == .coreFoundation { appendScalar([b ? 0x09 : 0x08]) }
                return existing
            }
            let index = appendScalar([b ? 0x09 : 0x08])
            if b { trueIndex = index } else { falseIndex = index }
            return index
        case .date(let date) where date.timeIntervalSinceReferenceDate.isNaN:
            return appendScalar(Self.encode(value))
        case .uid:
            return appendScalar(Self.encode(value))
        default:
            return shared(Self.encode(value))
        }
    }

    /// A container whose references are reserved now and filled by the caller.
    private mutating func addDetachedContainer(isDict: Bool, count refCount: Int) -> (object: Int, container: Int) {
        let container = containerCount.count
        containerRefStart.append(refs.count)
        containerCount.append(refCount)
        containerIsDict.append(isDict)
        refs.append(contentsOf: repeatElement(0, count: refCount))
        info.append(-(container + 1))
        return (info.count - 1, container)
    }

    @discardableResult
    private mutating func appendScalar(_ bytes: [UInt8]) -> Int {
        info.append(arena.count)
        arena.append(contentsOf: bytes)
        return info.count - 1
    }

    // MARK: Sharing

    private mutating func shared(_ bytes: [UInt8]) -> Int {
        let hash = Self.hash(bytes)
        var i = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[i] != 0 {
            let candidate = Int(slots[i] - 1)
            if scalarBytesEqual(candidate, bytes) { return candidate }
            i = (i + 1) & (slots.count - 1)
        }
        let index = appendScalar(bytes)
        slots[i] = UInt32(index + 1)
        used += 1
        if used * 4 > slots.count * 3 { grow() }
        return index
    }

    private func scalarBytesEqual(_ object: Int, _ bytes: [UInt8]) -> Bool {
        let start = info[object]
        guard start + bytes.count <= arena.count else { return false }
        for k in 0..<bytes.count where arena[start + k] != bytes[k] { return false }
        return Self.length(of: arena, at: start) == bytes.count
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        for entry in old where entry != 0 {
            let object = Int(entry - 1)
            let start = info[object]
            let bytes = Array(arena[start..<start + Self.length(of: arena, at: start)])
            var i = Int(truncatingIfNeeded: Self.hash(bytes)) & (slots.count - 1)
            while slots[i] != 0 { i = (i + 1) & (slots.count - 1) }
            slots[i] = entry
        }
    }

    private static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        h ^= h >> 29
        return h &* 0xBF58_476D_1CE4_E5B9
    }
}
