/// Decides which of a `withGraphTrackingMap` projection's values reach `onChange`.
///
/// ```swift
/// struct AtLeast: Filter {
///     let threshold: Int
///     func send(value: Int) -> Int? { value >= threshold ? value : nil }
/// }
/// withGraphTrackingMap({ model.count }, filter: AtLeast(threshold: 5)) { print($0) }
/// ```
public protocol Filter<Value> {
    /// The type of the projection's values.
    associatedtype Value
    /// The value to pass to `onChange`, or `nil` to skip this one. Called once per run of the map.
    mutating func send(value: Value) -> Value?
}
