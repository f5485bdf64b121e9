import Foundation

/// One column's value as SQLite stores it: what a ``StorageAttribute`` becomes in a row.
///
/// A ``StorageSchemaVersion`` written in SQL passes its arguments and reads its rows as these values:
///
/// ```swift
/// StorageSchemaVersion("3-close-old-orders") { db in
///     try db.execute(sql: #"UPDATE "Order" SET "status" = ? WHERE "total" = ?"#,
///                    arguments: [.text("closed"), .real(0)])
/// }
/// ```
public enum StorageValue: Sendable, Hashable, CustomStringConvertible {
/// SQL `NULL`: an optional attribute without a value, or a to-one relationship to nothing.
    case null
/// A 64-bit integer: the integer types, `Bool` (0 or 1) and a to-one relationship's row.
    case integer(Int64)
/// A double: `Double`, `Float` and `Date` (seconds since 1970).
    case real(Double)
/// Text, stored as UTF-8: `String`, `UUID`, `URL` and `Decimal`.
    case text(String)
/// Bytes: `Data`.
    case blob(Data)

    /// SQLite's name for the storage class, as errors print it.
    public var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): "\(v)"
        case .real(let v): "\(v)"
        case .text(let v): String(reflecting: v)
        case .blob(let v): "<\(v.count) bytes>"
        }
    }

    /// Values are equal when SQLite stores the same thing: text compares its UTF-8 bytes, so
    /// `"\u{E9}"` and `"e\u{301}"` (equal as Swift strings) are different values, and setting one
    /// over the other is a change that gets written.
    public static func == (a: StorageValue, b: StorageValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.integer(x), .integer(y)): x == y
        case let (.real(x), .real(y)): x.bitPattern == y.bitPattern
        case let (.text(x), .text(y)): x.utf8.elementsEqual(y.utf8)
        case let (.blob(x), .blob(y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let v): hasher.combine(1); hasher.combine(v)
        case .real(let v): hasher.combine(2); hasher.combine(v.bitPattern)
        case .text(let v): hasher.combine(3); for byte in v.utf8 { hasher.combine(byte) }
        case .blob(let v): hasher.combine(4); hasher.combine(v)
        }
    }
}

/// The SQL column type an attribute is declared with.
///
/// A ``StorageAttribute`` names its own; a `RawRepresentable` attribute takes its raw value's:
///
/// ```swift
/// enum OrderStatus: String, StorageAttribute { case pending, completed }
/// OrderStatus.columnType    // .text
/// ```
public enum StorageColumnType: String, Sendable {
/// `INTEGER`: the integer types and `Bool`.
    case integer = "INTEGER"
/// `REAL`: `Double`, `Float` and `Date`.
    case real = "REAL"
/// `TEXT`: `String`, `UUID`, `URL` and `Decimal`.
    case text = "TEXT"
/// `BLOB`: `Data`.
    case blob = "BLOB"
}
