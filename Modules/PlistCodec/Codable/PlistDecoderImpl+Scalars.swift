import Foundation

/// Conversions from property-list values to Swift scalars, shared by every decoding container.
extension PlistDecoderImpl {
    func bool(_ v: PlistValue, _ path: CodingPathNode) throws -> Bool {
        guard case .bool(let b) = v else { throw mismatch(Bool.self, v, path) }
        return b
    }

    func string(_ v: PlistValue, _ path: CodingPathNode) throws -> String {
        // `$null` is how Codable's nil is written; like Foundation, it is never a non-optional value.
        guard case .string(let s) = v, s != "$null" else { throw mismatch(String.self, v, path) }
        return s
    }

    func integer<T: FixedWidthInteger>(_ v: PlistValue, _ path: CodingPathNode) throws -> T {
        switch v {
        case .integer(let i):
            if let r = T(exactly: i.value) { return r }
            throw outOfRange(T.self, i.description, path)
        case .real(let d):
            if let r = T(exactly: d) { return r }
            throw outOfRange(T.self, "\(d)", path)
        case .float(let f):
            if let r = T(exactly: f) { return r }
            throw outOfRange(T.self, "\(f)", path)
        default:
            throw mismatch(T.self, v, path)
        }
    }

    func double(_ v: PlistValue, _ path: CodingPathNode) throws -> Double {
        switch v {
        case .real(let d): return d
        case .float(let f): return Double(f)
        case .integer(let i): return Double(i.value)
        default: throw mismatch(Double.self, v, path)
        }
    }

    func float(_ v: PlistValue, _ path: CodingPathNode) throws -> Float {
        switch v {
        case .float(let f): return f
        case .real(let d):
            if realsAreText || d.isNaN { return Float(d) }
            guard let f = Float(exactly: d) else { throw outOfRange(Float.self, "\(d)", path) }
            return f
        case .integer(let i): return Float(i.value)
        default: throw mismatch(Float.self, v, path)
        }
    }

    private func outOfRange(_ type: Any.Type, _ text: String, _ path: CodingPathNode) -> DecodingError {
        .dataCorrupted(.init(codingPath: path.path, debugDescription: "Parsed property list number <\(text)> does not fit in \(type)."))
    }
}

extension PlistDecoderImpl: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNullMarker }
    func decode(_ type: Bool.Type) throws -> Bool { try bool(value, path) }
    func decode(_ type: String.Type) throws -> String { try string(value, path) }
    func decode(_ type: Double.Type) throws -> Double { try double(value, path) }
    func decode(_ type: Float.Type) throws -> Float { try float(value, path) }
    func decode(_ type: Int.Type) throws -> Int { try integer(value, path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(value, path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(value, path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(value, path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(value, path) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(value, path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(value, path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(value, path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(value, path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(value, path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(value, as: type, path: path) }
}
