import Foundation

/// A value an entity's property can hold: it converts to and from one SQLite column.
///
/// The toolkit conforms `Bool`, the integer types, `Double`, `Float`, `String`, `Data`, `Date`, `UUID`,
/// `URL` and `Decimal`, and `Optional` of any of them (an optional column may hold `NULL`). A
/// `RawRepresentable` type whose raw value is an attribute conforms by declaring it; a new object starts
/// at the case whose raw value is the raw type's default (`""`, `0`), else at the first case of a
/// `CaseIterable` type (a type with neither stops the program when an object is inserted):
///
/// ```swift
/// enum OrderStatus: String, CaseIterable, StorageAttribute { case pending, processing, completed }
/// ```
///
/// Decoding never traps: a stored value of the wrong type makes ``decode(_:)`` return `nil`, and the
/// store reports ``StorageError/badValue(entity:property:rowID:found:)`` instead of crashing.
public protocol StorageAttribute: _ReadOnlyField, Equatable, Sendable where ReadOnlyField == Self {
    /// The column type of this attribute.
    static var columnType: StorageColumnType { get }
    /// Whether the column accepts `NULL` (only `Optional` does).
    static var isOptional: Bool { get }
    /// The value a new object starts with (zero, empty, `false`, `nil`).
    static var storageDefault: Self { get }
    /// ``storageDefault`` when the type has one, `nil` when it has none (a raw-value enum with no case
    /// for the raw type's default that is not `CaseIterable`): the model then names the property at
    /// open, as ``StorageError/model(_:)``, instead of the program stopping.
    static var storageDefaultIfAny: Self? { get }
    /// The value as a column value.
    var storageValue: StorageValue { get }
    /// The attribute for a column value, or `nil` when the column holds something this type cannot be.
    static func decode(_ value: StorageValue) -> Self?
}

extension StorageAttribute {
    /// ``storageDefault``: every type but a raw-value enum without a default case has one.
    public static var storageDefaultIfAny: Self? { storageDefault }

    public static var isOptional: Bool { false }
    public static func _readOnly(_ value: Self) -> Self { value }
}

extension Optional: _ReadOnlyField where Wrapped: _ReadOnlyField {
/// An optional property's read-only form: the wrapped type's, optional.
    public typealias ReadOnlyField = Wrapped.ReadOnlyField?
    public static func _readOnly(_ value: Self) -> Wrapped.ReadOnlyField? { value.map(Wrapped._readOnly) }
}

extension Optional: StorageAttribute where Wrapped: StorageAttribute {
    public static var columnType: StorageColumnType { Wrapped.columnType }
    public static var isOptional: Bool { true }
    public static var storageDefault: Self { nil }
    @inlinable public var storageValue: StorageValue { self?.storageValue ?? .null }
    @inlinable public static func decode(_ value: StorageValue) -> Self? {
        if case .null = value { return .some(nil) }
        return Wrapped.decode(value).map { .some($0) }
    }
}

extension StorageAttribute where Self: FixedWidthInteger {
    public static var columnType: StorageColumnType { .integer }
/// Zero.
    public static var storageDefault: Self { 0 }
    @inlinable public var storageValue: StorageValue { .integer(Int64(truncatingIfNeeded: self)) }
    @inlinable public static func decode(_ value: StorageValue) -> Self? {
        guard case .integer(let v) = value else { return nil }
        return Self(exactly: v)
    }
}

extension Int: StorageAttribute {}
extension Int64: StorageAttribute {}
extension Int32: StorageAttribute {}
extension Int16: StorageAttribute {}
extension Int8: StorageAttribute {}
extension UInt32: StorageAttribute {}
extension UInt16: StorageAttribute {}
extension UInt8: StorageAttribute {}

extension Bool: StorageAttribute {
    public static var columnType: StorageColumnType { .integer }
    public static var storageDefault: Bool { false }
    @inlinable public var storageValue: StorageValue { .integer(self ? 1 : 0) }
    @inlinable public static func decode(_ value: StorageValue) -> Bool? {
        guard case .integer(let v) = value else { return nil }
        return v != 0
    }
}

extension Double: StorageAttribute {
    public static var columnType: StorageColumnType { .real }
    public static var storageDefault: Double { 0 }
    @inlinable public var storageValue: StorageValue { .real(self) }
    @inlinable public static func decode(_ value: StorageValue) -> Double? {
        switch value {
        case .real(let v): v
        // SQLite stores a whole REAL as an INTEGER when the column affinity allows it.
        case .integer(let v): Double(v)
        default: nil
        }
    }
}

extension Float: StorageAttribute {
    public static var columnType: StorageColumnType { .real }
    public static var storageDefault: Float { 0 }
    @inlinable public var storageValue: StorageValue { .real(Double(self)) }
    @inlinable public static func decode(_ value: StorageValue) -> Float? { Double.decode(value).map(Float.init) }
}

extension String: StorageAttribute {
    public static var columnType: StorageColumnType { .text }
    public static var storageDefault: String { "" }
    @inlinable public var storageValue: StorageValue { .text(self) }
    @inlinable public static func decode(_ value: StorageValue) -> String? {
        guard case .text(let v) = value else { return nil }
        return v
    }
}

extension Data: StorageAttribute {
    public static var columnType: StorageColumnType { .blob }
    public static var storageDefault: Data { Data() }
    @inlinable public var storageValue: StorageValue { .blob(self) }
    @inlinable public static func decode(_ value: StorageValue) -> Data? {
        switch value {
        case .blob(let v): v
        // Text read as data is its UTF-8 bytes, as SQLite itself converts it.
        case .text(let v): Data(v.utf8)
        default: nil
        }
    }
}

/// Dates are stored as seconds since 1970 (REAL), so they sort and compare in SQL.
extension Date: StorageAttribute {
    public static var columnType: StorageColumnType { .real }
    public static var storageDefault: Date { Date(timeIntervalSince1970: 0) }
    @inlinable public var storageValue: StorageValue { .real(timeIntervalSince1970) }
    @inlinable public static func decode(_ value: StorageValue) -> Date? { Double.decode(value).map(Date.init(timeIntervalSince1970:)) }
}

/// UUIDs are stored as their uppercase text form.
extension UUID: StorageAttribute {
    public static var columnType: StorageColumnType { .text }
    public static var storageDefault: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    @inlinable public var storageValue: StorageValue { .text(uuidString) }
    @inlinable public static func decode(_ value: StorageValue) -> UUID? {
        guard case .text(let v) = value else { return nil }
        return UUID(uuidString: v)
    }
}

/// URLs are stored as their absolute string.
extension URL: StorageAttribute {
    public static var columnType: StorageColumnType { .text }
    public static var storageDefault: URL { URL(string: "about:blank")! }
    @inlinable public var storageValue: StorageValue { .text(absoluteString) }
    @inlinable public static func decode(_ value: StorageValue) -> URL? {
        guard case .text(let v) = value else { return nil }
        return URL(string: v)
    }
}

/// Decimals are stored as text, so no digit is lost to a binary double.
extension Decimal: StorageAttribute {
    public static var columnType: StorageColumnType { .text }
    public static var storageDefault: Decimal { 0 }
    @inlinable public var storageValue: StorageValue { .text(description) }
    @inlinable public static func decode(_ value: StorageValue) -> Decimal? {
        switch value {
        case .text(let v): Decimal(string: v, locale: Locale(identifier: "en_US_POSIX"))
        case .integer(let v): Decimal(v)
        case .real(let v): Decimal(v)
        default: nil
        }
    }
}

extension StorageAttribute where Self: RawRepresentable, RawValue: StorageAttribute {
    public static var columnType: StorageColumnType { RawValue.columnType }
    /// The first case whose raw value is the raw type's default, or the first `CaseIterable` case.
    ///
    /// A type with neither is refused when the model is resolved (``storageDefaultIfAny`` is `nil`),
    /// unless each of its properties declares a default; this is then never read.
    public static var storageDefault: Self {
        guard let value = storageDefaultIfAny else {
            fatalError("\(Self.self) has no case for \(RawValue.storageDefault); make it CaseIterable or give it a storageDefault")
        }
        return value
    }
    /// The first case whose raw value is the raw type's default, or the first `CaseIterable` case;
    /// `nil` when there is neither.
    public static var storageDefaultIfAny: Self? {
        if let value = Self(rawValue: RawValue.storageDefault) { return value }
        if let iterable = Self.self as? any CaseIterable.Type, let first = firstCase(of: iterable) as? Self { return first }
        return nil
    }
    @inlinable public var storageValue: StorageValue { rawValue.storageValue }
    @inlinable public static func decode(_ value: StorageValue) -> Self? { RawValue.decode(value).flatMap(Self.init(rawValue:)) }
}

private func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }
