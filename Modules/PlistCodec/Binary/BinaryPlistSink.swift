import Foundation

/// What `BinaryPlistWalker` hands on as it walks a binary property list's objects from the top one:
/// scalars, containers opening and closing, and objects met again.
///
/// A dictionary's events are its keys (each a string, checked by the walker), then its values in
/// the order `valueOrder` gives. The walker has checked an object before a sink hears of it, so
/// sinks only keep what they need; they throw only for reasons of their own (an output that fails).
/// The walker is generic over its sink and specialized for each one, so these calls are direct,
/// never through an existential: one event per object of a large file.
protocol BinaryPlistSink {
    /// The positions (`0..<count`) of a dictionary's values, in the order to visit them.
    associatedtype ValueOrder: Sequence where ValueOrder.Element == Int

    /// Whether an object met again is walked again in full, as text output spells out every
    /// reference; when `false` the walker reports it with `shared(object:)` instead.
    var expandsSharedObjects: Bool { get }
    /// Whether `scalar(_:object:)` needs the scalar's value. When `false` the walker checks each
    /// scalar without building it (no string or data is allocated) and hands on a placeholder:
    /// `.string("")` for a string, `.bool(false)` for anything else.
    static var wantsScalarValues: Bool { get }
    /// Object `object` is a scalar (anything but an array or a dictionary).
    mutating func scalar(_ value: PlistValue, object: Int) throws
    /// Object `object`, already walked, is referenced again.
    mutating func shared(object: Int) throws
    /// Object `object`, an array or a dictionary of `count` entries, opens.
    mutating func openContainer(object: Int, isDictionary: Bool, count: Int) throws
    /// The innermost open dictionary's `count` keys have been walked: which values to walk, in order.
    mutating func valueOrder(count: Int) throws -> ValueOrder
    /// The innermost open container, object `object`, closes.
    mutating func closeContainer(object: Int) throws
}

extension BinaryPlistSink {
    static var wantsScalarValues: Bool { true }
}
