import Foundation

/// Reads `bplist00` files into `PlistValue`.
///
/// Each object is decoded once: a container referenced from several places (legal, if unusual) is
/// shared rather than expanded again, so a file cannot make the reader do exponential work. A
/// reference to an object still being decoded is a cycle and an error.
struct BinaryPlistReader {
    let data: Data
    let options: PlistReadOptions

    init(data: Data, options: PlistReadOptions) {
        self.data = data
        self.options = options
    }

    func read() throws -> PlistValue {
        let doc: BinaryPlistDocument
        do {
            doc = try BinaryPlistDocument(data, strict: options.strict)
        } catch let error as PlistError {
            return try Self.textFallback(data, options: options, after: error)
        }
        var state = State(doc: doc, maxDepth: options.maxDepth)
        return try state.value(doc.topObject, depth: 0, site: doc.bytes.count - 16).value
    }

    /// What Foundation does with a file that starts with `bplist` but whose header or trailer is not
    /// a binary property list's: it reads the bytes as OpenStep text (`bplist00` alone is that string,
    /// and `bplist00 = "...";` a strings file, however long). Returns the text's value when it parses
    /// and `options` are not strict; otherwise throws `error`, the binary reader's account of what is
    /// wrong.
    static func textFallback(_ data: Data, options: PlistReadOptions, after error: PlistError) throws -> PlistValue {
        guard !options.strict, let value = try? OpenStepPlistReader(data: data, options: options).read() else {
            throw error
        }
        return value
    }

    private struct State {
        let doc: BinaryPlistDocument
        let maxDepth: Int
        /// Every decoded object by index, so an object referenced many times (a shared key or string)
        /// is decoded once; sized by the object count, which was checked against the file's length.
        var cache: [PlistValue?]
        /// The height of each decoded container's subtree (0 for scalars), for the depth limit.
        var heights: [Int32]
        var inProgress: [Bool]

        init(doc: BinaryPlistDocument, maxDepth: Int) {
            self.doc = doc
            self.maxDepth = maxDepth
            cache = [PlistValue?](repeating: nil, count: doc.numObjects)
            heights = [Int32](repeating: 0, count: doc.numObjects)
            inProgress = [Bool](repeating: false, count: doc.numObjects)
        }

        /// Decodes object `index` at nesting `depth`; returns it with the height of its subtree.
        mutating func value(_ index: Int, depth: Int, site: Int) throws -> (value: PlistValue, height: Int) {
            if index >= 0, index < cache.count, let hit = cache[index] {
                let height = Int(heights[index])
                guard depth + height <= maxDepth else { throw tooDeep(site) }
                return (hit, height)
            }
            let offset = try doc.offset(of: index, referencedAt: site)
            let bytes = doc.bytes
            let marker = bytes[offset]
            let high = marker >> 4, low = marker & 0x0F
            switch high {
            case 0xA, 0xD:
                guard depth < maxDepth else { throw tooDeep(offset) }
                guard !inProgress[index] else {
                    throw PlistError(.cycle, "binary plist: object \(index) contains itself", at: .byte(site))
                }
                inProgress[index] = true
                defer { inProgress[index] = false }
                let (count, start) = try doc.count(nibble: low, markerAt: offset)
                let isDict = high == 0xD
                let refs = isDict ? 2 * count : count
                let (total, overflow) = refs.multipliedReportingOverflow(by: doc.objectRefSize)
                guard !overflow else { throw PlistError(.outOfRange, "binary plist: count \(count) is larger than the file", at: .byte(offset)) }
                try doc.checkRange(start, total, what: "a list of \(count) references")
                var height = 0
                let result: PlistValue
                if isDict {
                    var keys: [String] = []
                    var values: [PlistValue] = []
                    keys.reserveCapacity(count)
                    values.reserveCapacity(count)
                    for i in 0..<count {
                        let keySite = start + i * doc.objectRefSize
                        let key = try self.value(doc.ref(at: start, i), depth: depth + 1, site: keySite).value
                        guard case .string(let k) = key else {
                            throw PlistError(.malformed, "binary plist: dictionary key \(i) of object \(index) is a \(key.kindName), not a string", at: .byte(keySite))
                        }
                        keys.append(k)
                    }
                    for i in 0..<count {
                        let valueSite = start + (count + i) * doc.objectRefSize
                        let v = try self.value(doc.ref(at: start, count + i), depth: depth + 1, site: valueSite)
                        values.append(v.value)
                        height = max(height, v.height + 1)
                    }
                    result = .dictionary(PlistDictionary(keys, values))
                } else {
                    var items: [PlistValue] = []
                    items.reserveCapacity(count)
                    for i in 0..<count {
                        let v = try self.value(doc.ref(at: start, i), depth: depth + 1, site: start + i * doc.objectRefSize)
                        items.append(v.value)
                        height = max(height, v.height + 1)
                    }
                    result = .array(items)
                }
                let entry = (result, max(height, 1))
                cache[index] = result
                heights[index] = Int32(clamping: entry.1)
                return entry
            default:
                let scalar = try BinaryScalar.read(doc, at: offset)
                cache[index] = scalar
                return (scalar, 0)
            }
        }

        func tooDeep(_ offset: Int) -> PlistError {
            PlistError(.tooDeep, "binary plist: nesting deeper than the limit of \(maxDepth)", at: .byte(offset))
        }
    }
}

extension PlistDictionary {
    /// Builds a dictionary from a file's parallel key and value lists; a repeated key keeps its first
    /// position and its last value.
    init(_ keys: [String], _ values: [PlistValue]) {
        var seen = Set<ExactString>()
        seen.reserveCapacity(keys.count)
        var unique = true
        for k in keys where !seen.insert(ExactString(value: k)).inserted { unique = false; break }
        if unique {
            self.init(uniqueKeys: keys, values: values)
        } else {
            self.init(zip(keys, values).map { ($0, $1) })
        }
    }
}

/// Decoding of non-container objects, shared by the value reader and the Codable decoder.
enum BinaryScalar {
    static func read<Bytes>(_ doc: BinaryPlistFile<Bytes>, at offset: Int) throws -> PlistValue {
        let bytes = doc.bytes
        let marker = bytes[offset]
        let high = marker >> 4, low = marker & 0x0F
        switch high {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw PlistError(.malformed, "binary plist: marker 0x\(hex(marker)) is not a property-list object", at: .byte(offset))
            }
        case 0x1:
            guard low <= 4 else {
                throw PlistError(.malformed, "binary plist: integer of \(1 << Int(min(low, 15))) bytes is not supported", at: .byte(offset))
            }
            let width = 1 << Int(low)
            try doc.checkRange(offset + 1, width, what: "an integer")
            if width == 16 {
                let hi = BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 8)
                let lo = BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 9, width: 8)
                let v = Int128(truncatingIfNeeded: UInt128(hi) << 64 | UInt128(lo))
                return .integer(PlistInteger(v, isWide: true))
            }
            let u = BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: width)
            // 1-, 2- and 4-byte integers are unsigned; 8-byte ones are signed.
            let v = width == 8 ? Int128(Int64(bitPattern: u)) : Int128(u)
            return .integer(PlistInteger(v, isWide: false))
        case 0x2:
            if low == 2 {
                try doc.checkRange(offset + 1, 4, what: "a 4-byte real")
                return .float(Float(bitPattern: UInt32(BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 4))))
            } else if low == 3 {
                try doc.checkRange(offset + 1, 8, what: "an 8-byte real")
                return .real(Double(bitPattern: BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 8)))
            }
            throw PlistError(.malformed, "binary plist: real of width code \(low) is not 4 or 8 bytes", at: .byte(offset))
        case 0x3:
            guard marker == 0x33 else {
                throw PlistError(.malformed, "binary plist: date marker 0x\(hex(marker)) is not 0x33", at: .byte(offset))
            }
            try doc.checkRange(offset + 1, 8, what: "a date")
            let t = Double(bitPattern: BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: 8))
            return .date(Date(timeIntervalSinceReferenceDate: t))
        case 0x4:
            let (n, start) = try doc.count(nibble: low, markerAt: offset)
            try doc.checkRange(start, n, what: "data of \(n) bytes")
            return .data(Data(bytes[start..<start + n]))
        case 0x5:
            let (n, start) = try doc.count(nibble: low, markerAt: offset)
            try doc.checkRange(start, n, what: "an ASCII string of \(n) bytes")
            let slice = bytes[start..<start + n]
            if let bad = slice.firstIndex(where: { $0 >= 0x80 }) {
                if doc.strict {
                    throw PlistError(.invalidString, "binary plist: ASCII string has byte 0x\(hex(bytes[bad]))", at: .byte(bad))
                }
                // Real files have them (iTunes libraries, some preferences); Foundation reads each
                // byte as the code point of the same value (Latin-1): "caf\u{E9}" is "café".
                var scalars = String.UnicodeScalarView()
                scalars.append(contentsOf: slice.lazy.map { Unicode.Scalar($0) })
                return .string(String(scalars))
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (n, start) = try doc.count(nibble: low, markerAt: offset)
            try doc.checkRange(start, 2 * n, what: "a UTF-16 string of \(n) code units")
            var units: [UInt16] = []
            units.reserveCapacity(n)
            for i in 0..<n { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
            guard let s = String(validating: units, as: UTF16.self) else {
                if doc.strict {
                    throw PlistError(.invalidString, "binary plist: UTF-16 string has an unpaired surrogate", at: .byte(start))
                }
                // As Foundation reads it: each unpaired surrogate becomes U+FFFD.
                return .string(String(decoding: units, as: UTF16.self))
            }
            return .string(s)
        case 0x8:
            let width = Int(low) + 1
            guard width <= 8 else {
                throw PlistError(.malformed, "binary plist: UID of \(width) bytes is wider than 8", at: .byte(offset))
            }
            try doc.checkRange(offset + 1, width, what: "a UID")
            return .uid(BinaryPlistFile<Bytes>.readUInt(bytes, at: offset + 1, width: width))
        default:
            throw PlistError(.malformed, "binary plist: marker 0x\(hex(marker)) is not a property-list object", at: .byte(offset))
        }
    }

    static func hex(_ b: UInt8) -> String { String(b, radix: 16) }
}
