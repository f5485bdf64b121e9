/// Any graph node, whatever its value's type: what tools that list nodes (``NodeStore``) see.
public protocol TypeErasedNode: AnyObject, Sendable, CustomDebugStringConvertible {
    /// The node's name and where it was made.
    var info: NodeInfo { get }
}

/// A graph node with a value: ``Stored`` or ``Computed``. Nodes are equal only to themselves.
///
/// Generic code over nodes reads `wrappedValue` (recording the read, inside a rule or a tracking
/// closure, as any read does) and derives new nodes with ``map(_:file:line:column:)``:
///
/// ```swift
/// func label(for node: some Node<Int>) -> Computed<String> {
///     node.map { _, value in "\(value) items" }
/// }
/// ```
public protocol Node<Value>: TypeErasedNode, Hashable {
    /// The type of the node's value.
    associatedtype Value
    /// The node's value.
    var wrappedValue: Value { get }
}

extension Node {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// A computed node derived from this one's value: `project` gets the rule's context and the
    /// value.
    ///
    /// ```swift
    /// let doubled = $count.map { _, count in count * 2 }
    /// ```
    @inlinable
    public func map<Projected>(_ project: @escaping @Sendable (Computed<Projected>.Context, Value) -> Projected,
                               file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) -> Computed<Projected> {
        Computed<Projected>(name: info.name ?? "computed", isEqual: nil,
                            location: SourceLocation(file: file, line: line, column: column),
                            refresher: Computed<Projected>.refresher, rule: { context in project(context, self.wrappedValue) })
    }
}

extension StoredNode: Node {
    public var info: NodeInfo { NodeInfo(name: name, sourceLocation: core.location) }
}

extension Computed: Node {
    public var info: NodeInfo { NodeInfo(name: name, sourceLocation: core.location) }
}
