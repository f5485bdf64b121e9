/// Passes every value, equal or not.
public struct PassthroughFilter<Value>: Filter {
    public init() {}

    public func send(value: Value) -> Value? { value }
}
