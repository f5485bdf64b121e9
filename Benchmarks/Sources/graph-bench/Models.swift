import Dispatch
import Observation
import Synchronization
import StateGraph

/// The graph side: one stored value and the computed value of it.
final class GraphCounter: Sendable {
    @GraphStored var count: Int = 0
    @GraphComputed var doubled: Int

    init() {
        self.$doubled = .init { [$count] _ in $count.wrappedValue * 2 }
    }
}

/// The Observation side, the same shape: a stored property and a computed property over it.
@Observable
final class ObservableCounter {
    var count: Int = 0
    var doubled: Int { count * 2 }
}

/// A chain of `length` computed nodes over one stored node: node i is node i-1 plus one.
struct GraphChain {
    let head: Stored<Int>
    let nodes: [Computed<Int>]

    init(length: Int) {
        let head = Stored(name: "head", wrappedValue: 0)
        var nodes: [Computed<Int>] = []
        nodes.reserveCapacity(length)
        nodes.append(Computed(name: "c0") { _ in head.wrappedValue + 1 })
        for index in 1..<max(length, 1) {
            let previous = nodes[index - 1]
            nodes.append(Computed(name: "c\(index)") { _ in previous.wrappedValue + 1 })
        }
        self.head = head
        self.nodes = nodes
    }

    var tail: Int { nodes[nodes.count - 1].wrappedValue }
}

/// The same chain with Observation: one observable stored property, and `length` derived values
/// each computed from the previous (as computed properties are: on every read, no cache).
struct ObservableChain {
    @Observable
    final class Head {
        var value: Int = 0
    }

    let head = Head()
    let tailRead: () -> Int

    init(length: Int) {
        let head = self.head
        var read: () -> Int = { head.value + 1 }
        for _ in 1..<max(length, 1) {
            let previous = read
            read = { previous() + 1 }
        }
        tailRead = read
    }

    var tail: Int { tailRead() }
}

/// Makes `changes` writes to a stored node, each delivered (the new value, in a task) to a
/// `withGraphTrackingMap` scope before the next; returns how many changes were delivered.
nonisolated func trackWithGraphScope(changes: Int) -> Int {
    let model = GraphCounter()
    let delivered = DispatchSemaphore(value: 0)
    let deliveries = Mutex(-1)  // the first value is no change
    let scope = withGraphTracking {
        withGraphTrackingMap { model.count } onChange: { _ in
            deliveries.withLock { $0 += 1 }
            delivered.signal()
        }
    }
    delivered.wait()  // the first value, delivered at once
    for value in 1...changes {
        model.count = value
        delivered.wait()
    }
    scope.cancel()
    return deliveries.withLock { $0 }
}

/// The same with Observation: `withObservationTracking` registered again, in a task, after each
/// change (its `onChange` runs before the new value is stored, so a task reads it, as an app would).
nonisolated func trackWithObservation(changes: Int) -> Int {
    final class Observer: @unchecked Sendable {
        let model = ObservableCounter()
        let delivered = DispatchSemaphore(value: 0)
        let deliveries = Mutex(0)
        let last = Mutex(0)

        func register() {
            withObservationTracking {
                _ = model.count
            } onChange: {
                Task {
                    self.last.withLock { $0 = self.model.count }
                    self.deliveries.withLock { $0 += 1 }
                    self.register()
                    self.delivered.signal()
                }
            }
        }
    }
    let observer = Observer()
    observer.register()
    for value in 1...changes {
        observer.model.count = value
        observer.delivered.wait()
    }
    return observer.deliveries.withLock { $0 }
}
