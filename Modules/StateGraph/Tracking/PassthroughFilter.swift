/// Passes every value, equal or not.
///
/// For a projection whose every run matters, even when it gives the value it gave last time:
///
/// ```swift
/// withGraphTrackingMap({ model.count }, filter: PassthroughFilter()) { print($0) }
/// ```
public struct PassthroughFilter<Value>: Filter {
    /// A filter that passes every value.
    public init() {}

    public func send(value: Value) -> Value? { value }
}
