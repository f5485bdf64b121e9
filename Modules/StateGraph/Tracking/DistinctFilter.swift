/// Passes a value only when it differs from the last one it passed (the first always passes): the
/// filter of the `withGraphTrackingMap` forms without `filter:`.
public struct DistinctFilter<Value: Equatable>: Filter {
    private var last: Value?

    public init() {}

    public mutating func send(value: Value) -> Value? {
        if let last, last == value { return nil }
        last = value
        return value
    }
}
