/// How a computed node computes its value and what counts as a change of it (swift-state-graph's
/// descriptor): give one to ``Computed/init(name:descriptor:file:line:column:)``.
///
/// ```swift
/// struct Total: ComputedDescriptor {
///     let price: Stored<Int>, quantity: Stored<Int>
///     func compute(context: inout Computed<Int>.Context) -> Int { price.wrappedValue * quantity.wrappedValue }
///     func isEqual(lhs: Int, rhs: Int) -> Bool { lhs == rhs }
/// }
/// let total = Computed(descriptor: Total(price: price, quantity: quantity))
/// ```
public protocol ComputedDescriptor<Value>: Sendable {
    /// The type of the node's value.
    associatedtype Value

    /// Computes the value; every node it reads becomes a dependency.
    func compute(context: inout Computed<Value>.Context) -> Value

    /// Whether a new value equal to the last one is no change (then the nodes computed from this
    /// one keep their values without running their rules).
    func isEqual(lhs: Value, rhs: Value) -> Bool
}

/// A descriptor made of closures: what ``ComputedDescriptor``'s `any(_:)` makes.
public struct AnyComputedDescriptor<Value>: ComputedDescriptor {
    private let computeValue: @Sendable (inout Computed<Value>.Context) -> Value
    private let equal: @Sendable (Value, Value) -> Bool

    /// A descriptor computing with `compute`, whose values are equal when `isEqual` says so.
    public init(compute: @escaping @Sendable (inout Computed<Value>.Context) -> Value,
                isEqual: @escaping @Sendable (Value, Value) -> Bool) {
        self.computeValue = compute
        self.equal = isEqual
    }

    /// A descriptor computing with `compute`, whose equal values (`==`) are no change.
    public init(compute: @escaping @Sendable (inout Computed<Value>.Context) -> Value) where Value: Equatable {
        self.init(compute: compute, isEqual: { $0 == $1 })
    }

    public func compute(context: inout Computed<Value>.Context) -> Value { computeValue(&context) }

    public func isEqual(lhs: Value, rhs: Value) -> Bool { equal(lhs, rhs) }
}

extension ComputedDescriptor {
    /// A descriptor computing with `compute`, every new value a change.
    ///
    /// ```swift
    /// let labels = Computed(descriptor: .any { _ in items.wrappedValue.map(\.title) })
    /// ```
    @Sendable public static func any<V>(_ compute: @escaping @Sendable (inout Computed<V>.Context) -> V) -> Self
    where Self == AnyComputedDescriptor<V> {
        AnyComputedDescriptor(compute: compute, isEqual: { _, _ in false })
    }

    /// A descriptor computing with `compute`, whose equal values (`==`) are no change.
    @Sendable public static func any<V: Equatable>(_ compute: @escaping @Sendable (inout Computed<V>.Context) -> V) -> Self
    where Self == AnyComputedDescriptor<V> {
        AnyComputedDescriptor(compute: compute)
    }
}
