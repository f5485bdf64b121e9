/// An observer of nodes (a one-shot tracking observer or a subscription): told once the change of a
/// node it read has spread.
@usableFromInline
protocol GraphObserver: GraphNotifying {
    /// Whether the nodes hold this observer strongly (a one-shot observer nobody else keeps) or
    /// weakly (a subscription, kept alive by its owner).
    var isRetainedByDependencies: Bool { get }
}
