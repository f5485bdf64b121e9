/// A node others can depend on: `Stored` and `Computed`.
@usableFromInline
protocol GraphDependency: AnyObject {
    /// Adds `dependent` to the nodes told when this one changes.
    func addDependent(_ dependent: any GraphDependent)
    /// Removes the dependent with this identity.
    func removeDependent(_ id: ObjectIdentifier)
}

/// Something told when a node it read changed: a computed node or an observer.
@usableFromInline
protocol GraphDependent: AnyObject {
    /// Whether the node holds this dependent strongly (a one-shot observer nobody else keeps) or
    /// weakly (a computed node or a subscription, kept alive by their owners).
    var isRetainedByDependencies: Bool { get }
    /// Marks this dependent stale: appends what must be invalidated next and what must be notified
    /// once the whole change has spread.
    func invalidate(_ work: inout GraphPropagation)
}

/// Something with observers to notify once a change has spread through the graph.
@usableFromInline
protocol GraphNotifying: AnyObject {
    /// Tells this thing's observers (Observation, graph tracking) that its value changed.
    func notifyObservers()
}

/// The dependents of one node, held weakly or strongly as each asks.
///
/// An array: nodes have few dependents, iterating it is what a write does, and inserting (a linear
/// search) happens only when an evaluation reads a node it did not read last time.
@usableFromInline
struct DependentSet {
    /// A weak reference in a box, so that copying an entry retains the box instead of touching the
    /// dependent's weak reference count.
    private final class WeakBox {
        weak var dependent: (any GraphDependent)?
        init(_ dependent: any GraphDependent) { self.dependent = dependent }
    }

    private enum Reference {
        case strong(any GraphDependent)
        case weak(WeakBox)
        /// A computed node's stand-in, dropped once its node is gone.
        case handle(DependentHandle)

        var isGone: Bool {
            switch self {
            case .strong: return false
            case .weak(let box): return box.dependent == nil
            case .handle(let handle): return handle.isDetached
            }
        }
    }

    private var ids: [ObjectIdentifier] = []
    private var references: [Reference] = []

    @usableFromInline init() {}

    /// Whether there is no dependent.
    @usableFromInline var isEmpty: Bool { ids.isEmpty }

    @usableFromInline
    mutating func insert(_ dependent: any GraphDependent) {
        let id = ObjectIdentifier(dependent)
        if ids.contains(id) { return }
        // New edges are when lists grow, so forget departed dependents here too.
        if references.contains(where: \.isGone) { removeGone() }
        ids.append(id)
        if let handle = dependent as? DependentHandle {
            references.append(.handle(handle))
        } else {
            references.append(dependent.isRetainedByDependencies ? .strong(dependent) : .weak(WeakBox(dependent)))
        }
    }

    private mutating func removeGone() {
        var index = references.count - 1
        while index >= 0 {
            if references[index].isGone {
                ids.remove(at: index)
                references.remove(at: index)
            }
            index -= 1
        }
    }

    @usableFromInline
    mutating func remove(_ id: ObjectIdentifier) {
        if let index = ids.firstIndex(of: id) {
            ids.remove(at: index)
            references.remove(at: index)
        }
    }

    /// Appends the live dependents to `list`; forgets the ones that are gone.
    @usableFromInline
    mutating func collect(into list: inout [any GraphDependent]) {
        // No list of gone indices: this runs for every node a write marks, and departures are rare.
        var sawGone = false
        for reference in references {
            switch reference {
            case .strong(let dependent):
                list.append(dependent)
            case .weak(let box):
                if let dependent = box.dependent { list.append(dependent) } else { sawGone = true }
            case .handle(let handle):
                if handle.isDetached { sawGone = true } else { list.append(handle) }
            }
        }
        if sawGone { removeGone() }
    }
}

/// One change spreading through the graph: the dependents still to invalidate and the nodes and
/// observers to notify afterwards, so no observer runs while part of the graph is still unmarked.
@usableFromInline
struct GraphPropagation {
    /// Dependents still to invalidate.
    @usableFromInline var pending: [any GraphDependent] = []
    /// What to notify once every dependent is marked.
    @usableFromInline var notifications: [any GraphNotifying] = []

    @usableFromInline init() {}

    /// Invalidates everything in `pending` and downstream of it. Runs no code of the program's own, so
    /// the writer may hold its node's lock meanwhile.
    @usableFromInline
    mutating func invalidateAll() {
        while let next = pending.popLast() {
            next.invalidate(&self)
        }
    }

    /// Notifies `items`, or queues them for the end of the running `withGraphBatch`.
    @usableFromInline
    static func notify(_ items: [any GraphNotifying]) {
        guard !items.isEmpty else { return }
        if let batch = GraphBatch.current {
            batch.enqueue(items)
        } else {
            for item in items { item.notifyObservers() }
        }
    }
}
