import Foundation

/// The `Decoder` behind `PlistDecoder` for binary and XML input: it reads a checked store in place
/// (`BinaryDecodingStore`, `XMLDecodingIndex`) instead of a `PlistValue` tree.
///
/// One instance serves a whole decode: descending into a value saves and restores `node` and
/// `path`. Coding paths are built only where a `Decodable` can see them (a nested value's own
/// decoder) or an error reports them, never per scalar.
final class FlatDecoder<Store: PlistDecodingStore>: Decoder {
    let store: Store
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether reals came from text (XML): they then round to `Float` instead of converting exactly.
    let realsAreText: Bool
    // Hot and only touched by the decoding thread: skip dynamic exclusivity checks.
    @exclusivity(unchecked) var node: Int
    @exclusivity(unchecked) var path: CodingPathNode
    /// Where the next key is most likely to be: just after the last one found, as types decode
    /// their keys in the order they were encoded. Only a hint, shared by every container.
    @exclusivity(unchecked) var keyHint = 0

    init(store: Store, node: Int, path: CodingPathNode, userInfo: [CodingUserInfoKey: Any], realsAreText: Bool) {
        self.store = store
        self.node = node
        self.path = path
        self.userInfo = userInfo
        self.realsAreText = realsAreText
    }

    var codingPath: [any CodingKey] { path.path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard store.kind(node) == .dictionary else { throw mismatch([String: Any].self, node, path) }
        return KeyedDecodingContainer(FlatKeyedContainer<Key, Store>(decoder: self, node: node, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard store.kind(node) == .array else { throw mismatch([Any].self, node, path) }
        return FlatUnkeyedContainer(decoder: self, items: store.container(node), path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// A decoder of its own for `node`, as `superDecoder()` returns.
    func child(_ node: Int, path: CodingPathNode) -> FlatDecoder {
        FlatDecoder(store: store, node: node, path: path, userInfo: userInfo, realsAreText: realsAreText)
    }

    /// Decodes `type` from `node`. `Date` and `Data` are property-list kinds of their own, and the
    /// common scalars (and arrays of them) are read directly; anything else decodes itself with this decoder moved to
    /// `node` (and its path built) for the time.
    @inline(__always)
    func unwrap<T: Decodable>(_ node: Int, as type: T.Type, path: @autoclosure () -> CodingPathNode) throws -> T {
        // Each type check makes its reinterpretation exact, and costs nothing once specialized.
        if T.self == String.self { return unsafeBitCast(try string(node, path()), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(node, path()) as Int, to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(node, path()), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(node, path()), to: T.self) }
        if T.self == [String].self { return unsafeBitCast(try array(node, path(), element: { try self.string($0, $1()) }), to: T.self) }
        if T.self == [Int].self { return unsafeBitCast(try array(node, path(), element: { try self.integer($0, $1()) as Int }), to: T.self) }
        if T.self == Date.self {
            guard store.kind(node) == .date else { throw mismatch(Date.self, node, path()) }
            return unsafeBitCast(Date(timeIntervalSinceReferenceDate: store.date(node)), to: T.self)
        }
        if T.self == Data.self {
            guard store.kind(node) == .data else { throw mismatch(Data.self, node, path()) }
            return unsafeBitCast(store.data(node), to: T.self)
        }
        let savedNode = self.node, savedPath = self.path
        self.node = node
        self.path = path()
        defer { self.node = savedNode; self.path = savedPath }
        return try T(from: self)
    }

    /// An array of scalars read without a container, as `Array.init(from:)` would read it: the
    /// same values, and the same errors at the same paths.
    @inline(__always)
    private func array<E>(_ node: Int, _ path: CodingPathNode,
                          element: (Int, @autoclosure () -> CodingPathNode) throws -> E) throws -> [E] {
        guard store.kind(node) == .array else { throw mismatch([Any].self, node, path) }
        let items = store.container(node)
        var result: [E] = []
        result.reserveCapacity(items.count)
        for i in 0..<items.count {
            result.append(try element(store.element(items, i), path.appending(PlistCodingKey(index: i))))
        }
        return result
    }

    func mismatch(_ expected: Any.Type, _ node: Int, _ path: CodingPathNode) -> DecodingError {
        let kind = store.kind(node)
        if kind == .string, store.isNullMarker(node) {
            return .valueNotFound(expected, .init(codingPath: path.path, debugDescription: "Expected \(expected) but found null instead."))
        }
        return .typeMismatch(expected, .init(codingPath: path.path, debugDescription: "Expected to decode \(expected) but found a \(kind.name) instead."))
    }
}

extension FlatDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { store.kind(node) == .string && store.isNullMarker(node) }
    func decode(_ type: Bool.Type) throws -> Bool { try bool(node, path) }
    func decode(_ type: String.Type) throws -> String { try string(node, path) }
    func decode(_ type: Double.Type) throws -> Double { try double(node, path) }
    func decode(_ type: Float.Type) throws -> Float { try float(node, path) }
    func decode(_ type: Int.Type) throws -> Int { try integer(node, path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(node, path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(node, path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(node, path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(node, path) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(node, path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(node, path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(node, path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(node, path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(node, path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(node, as: type, path: path) }
}

/// Conversions from stored objects to Swift scalars, the rules of `PlistDecoderImpl`'s: numbers
/// convert between integer and real kinds when the value fits exactly, and `$null` is never a value.
extension FlatDecoder {
    @inline(__always)
    func bool(_ node: Int, _ path: @autoclosure () -> CodingPathNode) throws -> Bool {
        guard store.kind(node) == .bool else { throw mismatch(Bool.self, node, path()) }
        return store.bool(node)
    }

    @inline(__always)
    func string(_ node: Int, _ path: @autoclosure () -> CodingPathNode) throws -> String {
        guard store.kind(node) == .string, !store.isNullMarker(node) else { throw mismatch(String.self, node, path()) }
        return store.string(node)
    }

    @inline(__always)
    func integer<T: FixedWidthInteger>(_ node: Int, _ path: @autoclosure () -> CodingPathNode) throws -> T {
        switch store.kind(node) {
        case .integer:
            let i = store.integer(node)
            if let r = T(exactly: i) { return r }
            throw outOfRange(T.self, i.description, path())
        case .real:
            let d = store.real(node)
            if let r = T(exactly: d) { return r }
            throw outOfRange(T.self, "\(d)", path())
        case .float:
            let f = store.float(node)
            if let r = T(exactly: f) { return r }
            throw outOfRange(T.self, "\(f)", path())
        default:
            throw mismatch(T.self, node, path())
        }
    }

    @inline(__always)
    func double(_ node: Int, _ path: @autoclosure () -> CodingPathNode) throws -> Double {
        switch store.kind(node) {
        case .real: return store.real(node)
        case .float: return Double(store.float(node))
        case .integer: return Double(store.integer(node))
        default: throw mismatch(Double.self, node, path())
        }
    }

    func float(_ node: Int, _ path: @autoclosure () -> CodingPathNode) throws -> Float {
        switch store.kind(node) {
        case .float: return store.float(node)
        case .real:
            let d = store.real(node)
            if realsAreText || d.isNaN { return Float(d) }
            guard let f = Float(exactly: d) else { throw outOfRange(Float.self, "\(d)", path()) }
            return f
        case .integer: return Float(store.integer(node))
        default: throw mismatch(Float.self, node, path())
        }
    }

    private func outOfRange(_ type: Any.Type, _ text: String, _ path: CodingPathNode) -> DecodingError {
        .dataCorrupted(.init(codingPath: path.path, debugDescription: "Parsed property list number <\(text)> does not fit in \(type)."))
    }
}
