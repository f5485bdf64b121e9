import Foundation

/// An ordered property-list dictionary: string keys in the order they were read or inserted.
///
/// Keys are compared by their exact Unicode scalars, not by Swift's canonical equivalence, so two keys
/// that differ only in normalization stay two keys (a file can hold both).
///
/// ```swift
/// var info: PlistDictionary = ["CFBundleName": .string("Example"), "LSMinimumSystemVersion": .string("13.0")]
/// info["CFBundleVersion"] = .string("42")                  // appended: the order is kept
/// let data = try PlistValue.dictionary(info).serialized(as: .xml)
/// ```
public struct PlistDictionary: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: PlistValue)

    /// The keys, in order.
    public private(set) var keys: [String]
    /// The values, in the order of `keys`.
    public private(set) var values: [PlistValue]

    /// Creates an empty dictionary.
    public init() { keys = []; values = [] }

    /// Creates a dictionary from key-value pairs; a repeated key keeps its first position and last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PlistValue) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    public init(dictionaryLiteral elements: (String, PlistValue)...) { self.init(elements) }

    /// Creates a dictionary from parallel arrays that the caller guarantees hold distinct keys.
    init(uniqueKeys keys: [String], values: [PlistValue]) {
        self.keys = keys
        self.values = values
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> Element { (keys[position], values[position]) }

    /// The position of `key`, comparing exact scalars.
    public func index(forKey key: String) -> Int? {
        keys.firstIndex { $0.unicodeScalars.elementsEqual(key.unicodeScalars) }
    }

    /// The value for `key`; setting `nil` removes it, setting an existing key keeps its position.
    public subscript(key: String) -> PlistValue? {
        get { index(forKey: key).map { values[$0] } }
        set {
            if let i = index(forKey: key) {
                if let newValue { values[i] = newValue } else { keys.remove(at: i); values.remove(at: i) }
            } else if let newValue {
                keys.append(key); values.append(newValue)
            }
        }
    }

    /// Removes the value for `key`, returning it.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        guard let i = index(forKey: key) else { return nil }
        keys.remove(at: i)
        return values.remove(at: i)
    }

    /// Sorts the entries by key (Swift `String` order, as `PropertyListEncoder` sorts).
    public mutating func sortKeys() {
        let order = keys.indices.sorted { keys[$0] < keys[$1] }
        keys = order.map { keys[$0] }
        values = order.map { values[$0] }
    }

    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        lhs.keys.count == rhs.keys.count
            && zip(lhs.keys, rhs.keys).allSatisfy { $0.unicodeScalars.elementsEqual($1.unicodeScalars) }
            && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys.count)
        for k in keys { for s in k.unicodeScalars { hasher.combine(s.value) }; hasher.combine(0xFFFF_FFFF as UInt32) }
        hasher.combine(values)
    }
}
