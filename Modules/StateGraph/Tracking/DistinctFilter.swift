/// Passes a value only when it differs from the last one it passed (the first always passes): the
/// filter of the `withGraphTrackingMap` forms without `filter:`.
///
/// ```swift
/// withGraphTrackingMap({ model.count }, filter: DistinctFilter()) { print($0) }   // the same as leaving filter: out
/// ```
public struct DistinctFilter<Value: Equatable>: Filter {
    private var last: Value?

    /// A filter that has passed nothing yet, so the first value passes.
    public init() {}

    public mutating func send(value: Value) -> Value? {
        if let last, last == value { return nil }
        last = value
        return value
    }
}
