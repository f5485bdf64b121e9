/// Something with observers to notify once a change has spread through the graph.
@usableFromInline
protocol GraphNotifying: AnyObject {
    /// Tells this thing's observers (Observation, graph tracking) that its value changed.
    func notifyObservers()
}

/// An observer of nodes (a one-shot tracking observer or a subscription): told once the change of a
/// node it read has spread.
@usableFromInline
protocol GraphObserver: GraphNotifying {
    /// Whether the nodes hold this observer strongly (a one-shot observer nobody else keeps) or
    /// weakly (a subscription, kept alive by its owner).
    var isRetainedByDependencies: Bool { get }
}

/// The observers of one node, held weakly or strongly as each asks. Guarded by `GraphLock`.
///
/// Computed nodes that read a node are not here: they are in its `dependents`, unretained (see
/// `NodeCore`). Observers are few and change rarely, so this is a plain array.
@usableFromInline
struct ObserverSet {
    /// A weak reference in a box, so that copying an entry retains the box instead of touching the
    /// observer's weak reference count.
    private final class WeakBox {
        weak var observer: (any GraphObserver)?
        init(_ observer: any GraphObserver) { self.observer = observer }
    }

    private enum Reference {
        case strong(any GraphObserver)
        case weak(WeakBox)

        var isGone: Bool {
            if case .weak(let box) = self { return box.observer == nil }
            return false
        }
    }

    @usableFromInline var ids: [ObjectIdentifier] = []
    private var references: [Reference] = []

    @usableFromInline init() {}

    /// Whether there is no observer.
    @inlinable var isEmpty: Bool { ids.isEmpty }

    @usableFromInline
    mutating func insert(_ observer: any GraphObserver) {
        let id = ObjectIdentifier(observer)
        if ids.contains(id) { return }
        // New edges are when lists grow, so forget departed observers here too (weak boxes only:
        // dropping one releases no program object).
        if references.contains(where: \.isGone) { removeGone() }
        ids.append(id)
        references.append(observer.isRetainedByDependencies ? .strong(observer) : .weak(WeakBox(observer)))
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

    /// Removes the observer with this identity; returns it, so the caller releases it after leaving
    /// `GraphLock` (the last release of a one-shot observer can free any object its closure holds).
    @usableFromInline
    mutating func remove(_ id: ObjectIdentifier) -> AnyObject? {
        guard let index = ids.firstIndex(of: id) else { return nil }
        ids.remove(at: index)
        switch references.remove(at: index) {
        case .strong(let observer): return observer
        case .weak(let box): return box
        }
    }

    /// Appends the live observers to `list`; forgets the ones that are gone.
    @usableFromInline
    mutating func collect(into list: inout GraphNotifications) {
        var sawGone = false
        for reference in references {
            switch reference {
            case .strong(let observer):
                list.append(observer)
            case .weak(let box):
                if let observer = box.observer { list.append(observer) } else { sawGone = true }
            }
        }
        if sawGone { removeGone() }
    }
}

/// What one change must notify once it has spread through the graph: computed nodes' relays, kept
/// apart (no existential, no reference counting of the list), and stored nodes and observers.
@usableFromInline
struct GraphNotifications {
    /// Each retained once, released by `deliver`. Freed by `discard()` (the thread's list lives as
    /// long as the thread).
    @usableFromInline var relays = TrivialList<Unmanaged<ObservationRelay>>()
    @usableFromInline var others: [any GraphNotifying] = []

    @inlinable init() {}

    @inlinable
    mutating func append(relay: ObservationRelay) {
        relays.append(.passRetained(relay))
    }

    @inlinable
    mutating func append(_ item: any GraphNotifying) {
        others.append(item)
    }

    /// Notifies everything (or queues it for the end of the thread's batch) and empties the lists,
    /// keeping their capacity.
    @inlinable
    mutating func deliver(on thread: EvaluationThread) {
        if relays.isEmpty && others.isEmpty { return }
        deliverSlowly(on: thread)
    }

    @usableFromInline
    mutating func deliverSlowly(on thread: EvaluationThread) {
        if let batch = thread.batch {
            batch.enqueue((0..<relays.count).map { relays[$0].takeRetainedValue() })
            batch.enqueue(others)
        } else {
            for index in 0..<relays.count {
                relays[index]._withUnsafeGuaranteedRef { $0.notifyObservers() }
                relays[index].release()
            }
            for item in others { item.notifyObservers() }
        }
        relays.removeAll()
        if !others.isEmpty { others.removeAll(keepingCapacity: true) }
    }

    /// Frees the relay list's memory (after `deliver`).
    @usableFromInline
    mutating func discard() {
        relays.deallocate()
    }
}
