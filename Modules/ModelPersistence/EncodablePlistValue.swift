import Foundation
import PlistCodec

/// A `PlistValue` as an `Encodable` value, for the field-based `encode(to:)` of `PersistedModel`: each
/// case is encoded as the Swift value it came from (an integer as `Int64` or `UInt64`, a real as
/// `Double`, a 32-bit real as `Float`), so a property-list encoder writes what the property would.
struct EncodablePlistValue: Encodable {
    let value: PlistValue

    init(_ value: PlistValue) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .integer(let integer):
            var container = encoder.singleValueContainer()
            // A wide integer is what an unsigned 64-bit property encodes to.
            if integer.isWide, let unsigned = UInt64(exactly: integer.value) {
                try container.encode(unsigned)
            } else if let signed = Int64(exactly: integer.value) {
                try container.encode(signed)
            } else if let unsigned = UInt64(exactly: integer.value) {
                try container.encode(unsigned)
            } else {
                throw EncodingError.invalidValue(integer.value, .init(codingPath: encoder.codingPath,
                                                                      debugDescription: "\(integer.value) does not fit in 64 bits"))
            }
        case .real(let real):
            var container = encoder.singleValueContainer()
            try container.encode(real)
        case .float(let float):
            var container = encoder.singleValueContainer()
            try container.encode(float)
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .date(let date):
            var container = encoder.singleValueContainer()
            try container.encode(date)
        case .data(let data):
            var container = encoder.singleValueContainer()
            try container.encode(data)
        case .array(let array):
            var container = encoder.unkeyedContainer()
            for element in array { try container.encode(EncodablePlistValue(element)) }
        case .dictionary(let dictionary):
            var container = encoder.container(keyedBy: PersistedCodingKey.self)
            for (key, element) in dictionary {
                try container.encode(EncodablePlistValue(element), forKey: PersistedCodingKey(stringValue: key))
            }
        case .uid(let uid):
            var container = encoder.singleValueContainer()
            try container.encode(uid)
        }
    }
}
