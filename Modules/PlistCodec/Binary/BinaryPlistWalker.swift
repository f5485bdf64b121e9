import Foundation

/// Walks a `bplist00` file's objects depth first from the top object, checking each, and hands
/// them to `sink`.
///
/// This is the only walk of the object table: the reader (`BinaryPlistShareMarks`, before
/// `BinaryPlistTreeBuilder` builds the tree), the validator (`BinaryPlistValidator`) and the
/// binary-to-XML stream (`BinaryToXMLStream`) are its sinks, so
/// they apply the same checks in the same order and throw the same `PlistError` (kind, message and
/// location): references and offsets inside the file, counts that fit it, the depth limit, cycles,
/// the expanded-size limit, and dictionary keys that are strings. A dictionary's keys are walked
/// before its values.
///
/// Per object it keeps one byte of state, the height of its subtree (0 for scalars) and the number
/// of values it expands to (1 for scalars), so an object referenced many times is checked once, a
/// sink that shares objects gets it once, and both limits are checked at every reference without
/// walking the object again. The walk recurses once per level of nesting, which `maxDepth` bounds.
///
/// ```swift
/// let marks = try doc.walk(PlistReadOptions(), into: BinaryPlistShareMarks(objectCount: doc.numObjects))
/// ```
struct BinaryPlistWalker<Bytes: RandomAccessCollection, Sink: BinaryPlistSink>
where Bytes.Element == UInt8, Bytes.Index == Int {
    private enum Mark: UInt8 {
        case unvisited = 0, inProgress, string, otherScalar, array, dictionary
    }

    let doc: BinaryPlistFile<Bytes>
    let maxDepth: Int
    /// `PlistReadOptions.maxValueCount`, at most `Int.max / 2` so that two counts below it add
    /// without overflow.
    let maxValueCount: Int
    var sink: Sink
    private var marks: [UInt8]
    /// The height of each walked container's subtree (0 for scalars), for the depth limit.
    private var heights: [Int32]
    /// How many values each walked container expands to, itself included, for the size limit.
    private var counts: [Int]

    init(doc: BinaryPlistFile<Bytes>, options: PlistReadOptions, sink: Sink) {
        self.doc = doc
        maxDepth = options.maxDepth
        maxValueCount = min(max(options.maxValueCount, 0), Int.max / 2)
        self.sink = sink
        marks = [UInt8](repeating: Mark.unvisited.rawValue, count: doc.numObjects)
        heights = [Int32](repeating: 0, count: doc.numObjects)
        counts = [Int](repeating: 1, count: doc.numObjects)
    }

    /// Walks the whole file from its top object.
    mutating func walk() throws {
        let site = doc.bytes.count - 16
        let top = try visit(doc.topObject, depth: 0, site: site)
        guard top.count <= maxValueCount else { throw tooLarge(site) }
    }

    /// Walks object `index` at nesting `depth`, referenced from byte `site`; returns the height of
    /// its subtree and the number of values it expands to.
    private mutating func visit(_ index: Int, depth: Int, site: Int) throws -> (height: Int, count: Int) {
        if index >= 0, index < marks.count, marks[index] > Mark.inProgress.rawValue, !sink.expandsSharedObjects {
            let height = Int(heights[index])
            guard depth + height <= maxDepth else { throw tooDeep(site) }
            try sink.shared(object: index)
            return (height, counts[index])
        }
        let offset = try doc.offset(of: index, referencedAt: site)
        let marker = doc.bytes[offset]
        let high = marker >> 4, low = marker & 0x0F
        guard high == 0xA || high == 0xD else {
            let scalar = try BinaryScalar.read(doc, at: offset, build: Sink.wantsScalarValues)
            if case .string = scalar { marks[index] = Mark.string.rawValue } else { marks[index] = Mark.otherScalar.rawValue }
            try sink.scalar(scalar, object: index)
            return (0, 1)
        }
        guard depth < maxDepth else { throw tooDeep(offset) }
        guard marks[index] != Mark.inProgress.rawValue else {
            throw PlistError(.cycle, "binary plist: object \(index) contains itself", at: .byte(site))
        }
        marks[index] = Mark.inProgress.rawValue
        let (count, start) = try doc.count(nibble: low, markerAt: offset)
        let isDict = high == 0xD
        let refs = isDict ? 2 * count : count
        let (total, overflow) = refs.multipliedReportingOverflow(by: doc.objectRefSize)
        guard !overflow else { throw PlistError(.outOfRange, "binary plist: count \(count) is larger than the file", at: .byte(offset)) }
        try doc.checkRange(start, total, what: "a list of \(count) references")
        try sink.openContainer(object: index, isDictionary: isDict, count: count)
        var height = 0
        // Each value's count is added as it is walked and checked at once, so a fan-out is refused
        // where it first passes the limit rather than after the whole walk. Keys are not values.
        var expanded = 1
        guard expanded <= maxValueCount else { throw tooLarge(offset) }
        if isDict {
            for i in 0..<count {
                let keySite = start + i * doc.objectRefSize
                let key = doc.ref(at: start, i)
                _ = try visit(key, depth: depth + 1, site: keySite)
                if marks[key] != Mark.string.rawValue {
                    throw PlistError(.malformed, "binary plist: dictionary key \(i) of object \(index) is a \(try kindName(key)), not a string", at: .byte(keySite))
                }
            }
            for i in try sink.valueOrder(count: count) {
                let valueSite = start + (count + i) * doc.objectRefSize
                let value = try visit(doc.ref(at: start, count + i), depth: depth + 1, site: valueSite)
                height = max(height, value.height + 1)
                expanded += value.count
                guard expanded <= maxValueCount else { throw tooLarge(valueSite) }
            }
        } else {
            for i in 0..<count {
                let site = start + i * doc.objectRefSize
                let item = try visit(doc.ref(at: start, i), depth: depth + 1, site: site)
                height = max(height, item.height + 1)
                expanded += item.count
                guard expanded <= maxValueCount else { throw tooLarge(site) }
            }
        }
        marks[index] = isDict ? Mark.dictionary.rawValue : Mark.array.rawValue
        heights[index] = Int32(clamping: max(height, 1))
        counts[index] = expanded
        try sink.closeContainer(object: index)
        return (max(height, 1), expanded)
    }

    /// The kind name of an object already walked, as `PlistValue.kindName` spells it.
    private func kindName(_ index: Int) throws -> String {
        switch Mark(rawValue: marks[index]) {
        case .array: return "array"
        case .dictionary: return "dict"
        default: return try BinaryScalar.read(doc, at: doc.offset(of: index, referencedAt: 0)).kindName
        }
    }

    private func tooDeep(_ offset: Int) -> PlistError {
        PlistError(.tooDeep, "binary plist: nesting deeper than the limit of \(maxDepth)", at: .byte(offset))
    }

    private func tooLarge(_ offset: Int) -> PlistError {
        PlistError(.tooLarge, "binary plist: more than \(maxValueCount) values once shared objects are counted "
                   + "wherever they are referenced (PlistReadOptions.maxValueCount)", at: .byte(offset))
    }
}

extension BinaryPlistFile {
    /// Walks the file into `sink`, under `options`' depth and size limits, and returns the sink.
    ///
    /// - Throws: The `PlistError` of the first object that fails a check, or what `sink` throws.
    func walk<Sink: BinaryPlistSink>(_ options: PlistReadOptions, into sink: Sink) throws -> Sink {
        var walker = BinaryPlistWalker(doc: self, options: options, sink: sink)
        try walker.walk()
        return walker.sink
    }
}
