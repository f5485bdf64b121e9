/// A key for a value every computed node's rule can read through `context.environment`
/// (swift-state-graph's computed environment).
///
/// ```swift
/// final class Catalog: ComputedEnvironmentKey, Sendable {
///     typealias Value = Catalog
///     let prices: [String: Int]
///     init(prices: [String: Int]) { self.prices = prices }
/// }
/// extension ComputedEnvironmentValues {
///     var catalog: Catalog! {
///         get { self[Catalog.self] }
///         set { self[Catalog.self] = newValue }
///     }
/// }
/// StateGraphGlobal.computedEnvironmentValues.withLock { $0.catalog = Catalog(prices: ["tea": 3]) }
/// let price = Computed { context in context.environment.catalog.prices["tea"] ?? 0 }
/// ```
public protocol ComputedEnvironmentKey {
    /// The type of the value stored under this key (often the key type itself).
    associatedtype Value
}
