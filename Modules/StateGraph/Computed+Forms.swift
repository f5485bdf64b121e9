/// swift-state-graph's other ways to make a computed node.
extension Computed {
    /// Creates a node computed by `rule` (swift-state-graph's `rule:` spelling of
    /// ``init(name:_:)``).
    ///
    /// ```swift
    /// let total = Computed(name: "total", rule: { _ in price.wrappedValue * quantity.wrappedValue })
    /// ```
    public convenience init(name: String = "computed", rule: @escaping @Sendable (inout Context) -> Value,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, isEqual: Self.equality, location: SourceLocation(file: file, line: line, column: column), rule: rule)
    }

    /// Creates a node computed by `descriptor` (swift-state-graph's descriptor spelling): its
    /// `compute(context:)` is the rule and its `isEqual(lhs:rhs:)` decides what counts as a change
    /// (the equality cut-off).
    ///
    /// ```swift
    /// let total = Computed(descriptor: .any { _ in price.wrappedValue * quantity.wrappedValue })
    /// ```
    public convenience init(name: String = "computed", descriptor: some ComputedDescriptor<Value>,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, isEqual: { descriptor.isEqual(lhs: $0, rhs: $1) }, location: SourceLocation(file: file, line: line, column: column),
                  rule: { descriptor.compute(context: &$0) })
    }

    /// A node that always has `stored`'s value (a read-only view of it).
    public convenience init(_ stored: Stored<Value>, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: stored.name, isEqual: Self.equality, location: SourceLocation(file: file, line: line, column: column), rule: { _ in stored.wrappedValue })
    }

    /// A node that always has `computed`'s value.
    public convenience init(_ computed: Computed<Value>, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: computed.name, isEqual: Self.equality, location: SourceLocation(file: file, line: line, column: column), rule: { _ in computed.wrappedValue })
    }

    /// A node whose value never changes: for an API that takes a `Computed` where the value is fixed.
    ///
    /// ```swift
    /// let unlimited = Computed(constant: Int.max)
    /// ```
    public convenience init(constant: consuming sending Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        let box = ConstantBox(constant)
        self.init(name: "constant", isEqual: nil, location: SourceLocation(file: file, line: line, column: column), rule: { _ in box.value })
    }

}


extension Computed {
    /// `==` when the value's type is `Equatable` (found at run time, so a node made in generic code
    /// gets it too), else `nil`: every new value is a change.
    @usableFromInline
    static var equality: (@Sendable (Value, Value) -> Bool)? {
        guard let type = Value.self as? any Equatable.Type else { return nil }
        return comparison(type)
    }

    private static func comparison<E: Equatable>(_: E.Type) -> @Sendable (Value, Value) -> Bool {
        // `E` is `Value` (the cast above succeeded), so the bit casts are identities.
        { unsafeBitCast($0, to: E.self) == unsafeBitCast($1, to: E.self) }
    }
}

/// A constant handed over (`sending`) to a node, which only ever reads it.
private final class ConstantBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: consuming sending Value) { self.value = value }
}
