/// A get/set pair for a node's value, for UI code and helpers that take a binding.
///
/// ```swift
/// let debug = model.$debugMode.binding
/// debug.value.toggle()
/// ```
/// The binding is `Sendable`: its getter and setter are `@Sendable` closures.
public struct GraphBinding<Value>: Sendable {
    private let get: @Sendable () -> Value
    private let set: @Sendable (Value) -> Void

    /// A binding reading with `get` and writing with `set`.
    public init(get: @escaping @Sendable () -> Value, set: @escaping @Sendable (Value) -> Void) {
        self.get = get
        self.set = set
    }

    /// The value: reading calls the getter, writing the setter.
    public var value: Value {
        get { get() }
        nonmutating set { set(newValue) }
    }
}

extension StoredNode {
    /// A get/set pair for this node's value.
    public var binding: GraphBinding<Value> {
        GraphBinding(get: { self.wrappedValue }, set: { self.wrappedValue = $0 })
    }
}
