/// How a node keeps a value that fits in a word: plain values (no references to retain) of at most
/// eight bytes, such as `Int`, `Double` and `Bool`, live as bits in an atomic word, so a fresh node
/// can be read without the graph lock. `Stored` keeps its value so; `Computed` its cached value.
/// Whether a type fits is decided per specialization, at compile time.
@usableFromInline
enum WordPacking<Value> {
    /// Whether `Value` is kept as bits: plain, and no larger than a `UInt64`.
    @inlinable
    static var fits: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
    }

    /// The bits of `value`; only for types that `fits`.
    @inlinable
    static func pack(_ value: Value) -> UInt64 {
        var bits: UInt64 = 0
        withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: value, as: Value.self) }
        return bits
    }

    /// The value `pack` made `bits` from.
    @inlinable
    static func unpack(_ bits: UInt64) -> Value {
        withUnsafeBytes(of: bits) { $0.load(as: Value.self) }
    }
}
