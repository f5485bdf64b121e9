// Every node reports to Observation, so a model's users call `withObservationTracking`; they should
// not need a second import for it (ModelPersistence re-exports it for the same reason).
@_exported import Observation

/// Where a `@GraphStored` property keeps its value: `.memory`, `.userDefaults(key:)` or
/// `.userDefaults(suite:key:)`.
///
/// The argument of `@GraphStored(backed:)`, and of ``UserDefaultsStored``'s `init(name:backing:defaultValue:file:line:column:)`:
///
/// ```swift
/// @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "theme")) var theme: String = "light"
/// let window = UserDefaultsStored(name: "window", backing: .userDefaults(key: "window"), defaultValue: 800)
/// ```
public struct GraphStorageBacking: Sendable, Equatable {
    enum Place: Equatable {
        case memory
        /// A key of a suite; `nil` is the standard suite.
        case suite(String?, key: String)
    }

    let place: Place
    /// The node's name, when given (`userDefaults(suite:key:name:)`), instead of the property's.
    let nodeName: String?

    init(place: Place, nodeName: String? = nil) {
        self.place = place
        self.nodeName = nodeName
    }

    /// In memory, for the life of the instance (the default).
    public static let memory = GraphStorageBacking(place: .memory)

    /// Under `key` in the standard suite (named after the program; see `GraphStorageLocation`).
    public static func userDefaults(key: String) -> GraphStorageBacking {
        GraphStorageBacking(place: .suite(nil, key: key))
    }

    /// Under `key` in the suite `suite`.
    public static func userDefaults(suite: String, key: String) -> GraphStorageBacking {
        GraphStorageBacking(place: .suite(suite, key: key))
    }

    /// Under `key` in the suite `suite`, the node named `name` (in descriptions and
    /// ``NodeInfo/name``) instead of after the property.
    public static func userDefaults(suite: String, key: String, name: String) -> GraphStorageBacking {
        GraphStorageBacking(place: .suite(suite, key: key), nodeName: name)
    }
}

/// Makes a property a stored graph node, `$name`, kept in memory or in a defaults suite.
///
/// ```swift
/// final class Counter {
///     @GraphStored var count: Int = 0                                        // memory
///     @GraphStored(backed: .userDefaults(key: "theme")) var theme = "light"   // needs a type annotation
///     @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "apiEndpoint"))
///     var apiEndpoint: String = "https://api.example.com"
/// }
/// ```
///
/// The property needs a type annotation. An instance property of a class, an actor or a struct may omit
/// its initial value when its initializers assign it (or assign `$name`, to share another object's
/// node); a static, top-level or suite-backed one needs it, except an optional (`nil`). With a suite,
/// the initial value is the default shown while the suite has no value for the key, and the type must
/// be `Codable`. An implicitly unwrapped optional `T!` keeps a `Stored<T?>`. In a struct the setter is
/// `nonmutating` and the memberwise initializer takes the property. `weak`, `unowned` and `lazy`
/// properties are refused: mark a weak reference `@GraphIgnored`.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(`$`))
public macro GraphStored(backed: GraphStorageBacking = .memory) =
    #externalMacro(module: "StateGraphMacros", type: "GraphStoredMacro")

/// Makes a property a computed graph node, `$name`, whose rule the type's `init` sets.
///
/// ```swift
/// @GraphComputed var displayName: String
///
/// init() {
///     self.$displayName = .init { [$userName] _ in
///         $userName.wrappedValue.isEmpty ? "Anonymous User" : $userName.wrappedValue
///     }
/// }
/// ```
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(`$`))
public macro GraphComputed() = #externalMacro(module: "StateGraphMacros", type: "GraphComputedMacro")

/// Marks a property the graph macros leave alone (they put it on the `$` nodes they generate).
@attached(peer)
public macro GraphIgnored() = #externalMacro(module: "StateGraphMacros", type: "GraphIgnoredMacro")
