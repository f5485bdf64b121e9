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
