/// The values of the computed environment, by key type. One set for the whole process
/// (`StateGraphGlobal.computedEnvironmentValues`); reading one in a rule is not a dependency, and
/// changing one invalidates nothing.
///
/// Declare a property per key, as SwiftUI's `EnvironmentValues` are extended:
///
/// ```swift
/// extension ComputedEnvironmentValues {
///     var catalog: Catalog! {
///         get { self[Catalog.self] }
///         set { self[Catalog.self] = newValue }
///     }
/// }
/// ```
// @unchecked Sendable: a value type; the process's one copy lives in `ComputedEnvironmentStorage` and is only read or changed under its lock
public struct ComputedEnvironmentValues: @unchecked Sendable {
    private var storage: [ObjectIdentifier: Any] = [:]

    /// An empty set: every key reads `nil`.
    public init() {}

    /// The value for `key`, or `nil` when none was set.
    public subscript<Key: ComputedEnvironmentKey>(key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)] as? Key.Value }
        set { storage[ObjectIdentifier(key)] = newValue }
    }
}
