/// The values of the computed environment, by key type. One set for the whole process
/// (`StateGraphGlobal.computedEnvironmentValues`); reading one in a rule is not a dependency, and
/// changing one invalidates nothing.
public struct ComputedEnvironmentValues: @unchecked Sendable {
    private var storage: [ObjectIdentifier: Any] = [:]

    public init() {}

    /// The value for `key`, or `nil` when none was set.
    public subscript<Key: ComputedEnvironmentKey>(key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)] as? Key.Value }
        set { storage[ObjectIdentifier(key)] = newValue }
    }
}
