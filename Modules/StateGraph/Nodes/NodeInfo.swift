/// What identifies a node to a person reading a graph: its name and where it was made.
public struct NodeInfo: Sendable {
    /// The name given at creation (the property's name for `@GraphStored` and `@GraphComputed`).
    public let name: String?
    /// Where the node was made.
    public let sourceLocation: SourceLocation

    init(name: String?, sourceLocation: SourceLocation) {
        self.name = name
        self.sourceLocation = sourceLocation
    }
}
