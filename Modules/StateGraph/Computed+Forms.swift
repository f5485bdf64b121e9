/// swift-state-graph's other ways to make a computed node.
extension Computed {
    /// Creates a node computed by `rule` (swift-state-graph's `rule:` spelling of
    /// ``init(name:_:file:line:column:)``).
    ///
    /// ```swift
    /// let total = Computed(name: "total", rule: { _ in price.wrappedValue * quantity.wrappedValue })
    /// ```
    @inlinable @_disfavoredOverload // A trailing closure means `init(name:_:)`.
    public convenience init(name: String = "computed", rule: @escaping @Sendable (inout Context) -> Value,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, isEqual: nil, location: SourceLocation(file: file, line: line, column: column), refresher: Self.refresher, rule: rule)
    }

    /// Creates a node computed by `descriptor` (swift-state-graph's descriptor spelling): its
    /// `compute(context:)` is the rule and its `isEqual(lhs:rhs:)` decides what counts as a change.
    ///
    /// The equality cut-off: when the node computes a value equal to its last one, the nodes computed
    /// from it keep their values without running their rules, however far down. A dependent checking
    /// its reads brings such a node up to date first (plain nodes it finds stale make it run its
    /// rule). Observers and Observation still hear of the change of what it read: they are told
    /// before anyone computes the new value.
    ///
    /// ```swift
    /// let parity = Computed(descriptor: .any { @Sendable _ in count.wrappedValue % 2 })
    /// let label = Computed { _ in parity.wrappedValue == 0 ? "even" : "odd" }   // runs when parity changes
    /// ```
    @inlinable
    public convenience init(name: String = "computed", descriptor: some ComputedDescriptor<Value>,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, isEqual: { descriptor.isEqual(lhs: $0, rhs: $1) }, location: SourceLocation(file: file, line: line, column: column),
                  refresher: Self.refresher, refreshedByDependents: true, rule: { descriptor.compute(context: &$0) })
    }

    /// A node that always has `stored`'s value (a read-only view of it).
    @inlinable
    public convenience init<S>(_ stored: StoredNode<Value, S>, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: stored.name, isEqual: nil, location: SourceLocation(file: file, line: line, column: column), refresher: Self.refresher, rule: { _ in stored.wrappedValue })
    }

    /// A node that always has `computed`'s value.
    @inlinable
    public convenience init(_ computed: Computed<Value>, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: computed.name, isEqual: nil, location: SourceLocation(file: file, line: line, column: column), refresher: Self.refresher, rule: { _ in computed.wrappedValue })
    }

    /// A node whose value never changes: for an API that takes a `Computed` where the value is fixed.
    ///
    /// ```swift
    /// let unlimited = Computed(constant: Int.max)
    /// ```
    @inlinable
    public convenience init(constant: consuming sending Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        let box = ConstantBox(constant)
        self.init(name: "constant", isEqual: nil, location: SourceLocation(file: file, line: line, column: column), refresher: Self.refresher, rule: { _ in box.value })
    }

}


/// A constant handed over (`sending`) to a node, which only ever reads it.
// @unchecked Sendable: immutable: `value` is handed over (`sending`) in `init` and only read after
@usableFromInline
final class ConstantBox<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @usableFromInline init(_ value: consuming sending Value) { self.value = value }
}
