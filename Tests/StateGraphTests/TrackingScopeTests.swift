import Foundation
import StateGraph
import Testing

/// swift-state-graph's continuing observation: `withGraphTracking { }` scopes with groups and maps.
/// The invariants: the first run is synchronous; later runs come on the isolation the scope was made
/// on, coalesced, never lost; cancelling (or releasing) the token ends every scope inside it and lets
/// go of their closures at once; a nested scope lives only as long as the run that made it.
@Suite("tracking scopes")
struct TrackingScopeTests {
    /// Lets the main actor run what is queued on it before this call (tasks run in order).
    @MainActor
    static func drainMainActor() async {
        await Task { @MainActor in }.value
    }

    @Test("a group runs before withGraphTrackingGroup returns, and again after a change of what it read")
    func groupRunsNowAndAfterChanges() async {
        let a = Stored(name: "a", wrappedValue: 1)
        let b = Stored(name: "b", wrappedValue: 10)
        let seen = Recorded<Int>()
        let token = withGraphTracking {
            withGraphTrackingGroup { seen.append(a.wrappedValue) }
        }
        #expect(seen.all == [1])
        b.wrappedValue = 11   // not read: nothing
        a.wrappedValue = 2
        #expect(await eventually { seen.all == [1, 2] })
        token.cancel()
        a.wrappedValue = 3
        b.wrappedValue = 12
        // A scope that is still tracked would have run by the time a fresh scope over `a` has.
        let probe = Recorded<Int>()
        let second = withGraphTracking { withGraphTrackingGroup { probe.append(a.wrappedValue) } }
        a.wrappedValue = 4
        #expect(await eventually { probe.all == [3, 4] })
        #expect(seen.all == [1, 2], "a cancelled scope ran again")
        second.cancel()
    }

    @MainActor
    @Test("set up on the main actor: runs on the main actor whatever thread writes, and writes before it runs are coalesced into one run")
    func mainActorDeliveryCoalesced() async {
        let a = Stored(name: "a", wrappedValue: 0)
        let b = Stored(name: "b", wrappedValue: 0)
        var runs: [String] = []
        let token = withGraphTracking {
            withGraphTrackingGroup {
                runs.append("\(a.wrappedValue),\(b.wrappedValue)")
            }
        }
        #expect(runs == ["0,0"])
        a.wrappedValue = 1
        b.wrappedValue = 2
        a.wrappedValue = 3
        #expect(runs == ["0,0"], "nothing runs on the writing thread")
        await Self.drainMainActor()
        #expect(runs == ["0,0", "3,2"], "three writes before the run: one run that sees them all")
        // Another thread writes while the main actor is busy: the run waits for the main actor.
        Self.onAnotherThreadAndWait { b.wrappedValue = 5 }
        #expect(runs.count == 2, "the run did not wait for the main actor")
        await Self.drainMainActor()
        #expect(runs == ["0,0", "3,2", "3,5"])
        token.cancel()
    }

    /// Runs `body` on a dispatch thread and blocks this one until it is done.
    static func onAnotherThreadAndWait(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test("set up inside an actor: runs on that actor, after what it is doing")
    func actorDelivery() async {
        actor Owner {
            let node = Stored(name: "node", wrappedValue: 0)
            var seen: [Int] = []
            var token: AnyCancellable?
            func start() {
                token = withGraphTracking {
                    withGraphTrackingGroup { self.seen.append(self.node.wrappedValue) }
                }
            }
            /// Writes from another thread while this actor is busy; returns what the scope had seen by then.
            func writeElsewhereWhileBusy(_ value: Int) -> [Int] {
                let node = node
                TrackingScopeTests.onAnotherThreadAndWait { node.wrappedValue = value }
                return seen
            }
            func stop() { token?.cancel() }
        }
        let owner = Owner()
        await owner.start()
        #expect(await owner.seen == [0])
        #expect(await owner.writeElsewhereWhileBusy(7) == [0], "the run did not wait for the actor")
        let deadline = ContinuousClock.now + .seconds(60)
        while await owner.seen.count < 2, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(await owner.seen == [0, 7])
        await owner.stop()
    }

    @MainActor
    @Test("a map passes distinct values by default; a custom filter keeps its state; PassthroughFilter passes every run")
    func mapsAndFilters() async {
        let first = Stored(name: "first", wrappedValue: "John")
        let last = Stored(name: "last", wrappedValue: "Doe")
        let count = Stored(name: "count", wrappedValue: 0)
        var names: [String] = []
        var evens: [Int] = []
        var every: [Int] = []
        struct Evens: Filter {
            var passed = 0
            mutating func send(value: Int) -> Int? {
                guard value % 2 == 0 else { return nil }
                passed += 1
                return value
            }
        }
        let token = withGraphTracking {
            withGraphTrackingMap { "\(first.wrappedValue) \(last.wrappedValue)" } onChange: { names.append($0) }
            withGraphTrackingMap({ count.wrappedValue }, filter: Evens()) { evens.append($0) }
            withGraphTrackingMap({ count.wrappedValue / 2 }, filter: PassthroughFilter()) { every.append($0) }
        }
        #expect(names == ["John Doe"], "onChange runs with the first value before the call returns")
        first.wrappedValue = "Jane"
        await Self.drainMainActor()
        last.wrappedValue = "Doe"   // the same value: no change at all
        await Self.drainMainActor()
        last.wrappedValue = "Smith"
        await Self.drainMainActor()
        #expect(names == ["John Doe", "Jane Doe", "Jane Smith"])
        for value in 1...4 {
            count.wrappedValue = value
            await Self.drainMainActor()
        }
        #expect(evens == [0, 2, 4])
        #expect(every == [0, 0, 1, 1, 2], "PassthroughFilter repeats an equal projection")
        token.cancel()
    }

    @MainActor
    @Test("nested scopes: a change re-runs the innermost scope that read it; a parent's run makes its children again; cancelling ends them all")
    func nestedScopes() async {
        let outer = Stored(name: "outer", wrappedValue: 0)
        let inner = Stored(name: "inner", wrappedValue: 0)
        var outerRuns = 0
        var innerRuns = 0
        let token = withGraphTracking {
            withGraphTrackingGroup {
                outerRuns += 1
                _ = outer.wrappedValue
                withGraphTrackingGroup {
                    innerRuns += 1
                    _ = inner.wrappedValue
                }
            }
        }
        #expect((outerRuns, innerRuns) == (1, 1))
        inner.wrappedValue = 1
        await Self.drainMainActor()
        #expect((outerRuns, innerRuns) == (1, 2), "the inner change re-runs the inner scope only")
        outer.wrappedValue = 1
        await Self.drainMainActor()
        #expect((outerRuns, innerRuns) == (2, 3), "the outer run makes the inner scope again")
        inner.wrappedValue = 2
        await Self.drainMainActor()
        #expect((outerRuns, innerRuns) == (2, 4), "only the new inner scope runs: the old one was cancelled")
        token.cancel()
        inner.wrappedValue = 3
        outer.wrappedValue = 2
        await Self.drainMainActor()
        #expect((outerRuns, innerRuns) == (2, 4))
    }

    @Test("cancelling lets go of every closure at once, nested ones included; releasing the token cancels too")
    func cancellingReleasesClosures() {
        final class Resource {}
        let node = Stored(name: "node", wrappedValue: 0)
        weak var outerHeld: Resource?
        weak var innerHeld: Resource?
        var token: AnyCancellable? = nil
        do {
            let outerResource = Resource()
            let innerResource = Resource()
            outerHeld = outerResource
            innerHeld = innerResource
            token = withGraphTracking {
                withGraphTrackingGroup {
                    _ = outerResource
                    _ = node.wrappedValue
                    withGraphTrackingMap { node.wrappedValue } onChange: { _ in _ = innerResource }
                }
            }
        }
        #expect(outerHeld != nil && innerHeld != nil)
        token?.cancel()
        #expect(outerHeld == nil, "the group's closure is released by cancel()")
        #expect(innerHeld == nil, "the nested map's closures are released by cancel()")
        weak var released: Resource?
        do {
            let resource = Resource()
            released = resource
            _ = withGraphTracking { withGraphTrackingGroup { _ = resource; _ = node.wrappedValue } }
        }
        #expect(released == nil, "a token nobody keeps ends its scopes")
        token = nil
    }

    @MainActor
    @Test("from: holds the model weakly and stops once it is gone")
    func weakSource() async {
        final class ViewModel {
            let title = Stored(name: "title", wrappedValue: "one")
        }
        var model: ViewModel? = ViewModel()
        weak var weakModel = model
        let title = model!.title
        var titles: [String] = []
        let token = withGraphTracking {
            withGraphTrackingMap(from: model!, map: { $0.title.wrappedValue }) { titles.append($0) }
        }
        title.wrappedValue = "two"
        await Self.drainMainActor()
        #expect(titles == ["one", "two"])
        model = nil
        #expect(weakModel == nil, "the tracking does not keep the model")
        title.wrappedValue = "three"
        await Self.drainMainActor()
        title.wrappedValue = "four"
        await Self.drainMainActor()
        #expect(titles == ["one", "two"])
        token.cancel()
    }

    @MainActor
    @Test("a handler that cancels its own scope, or writes a node it read, neither deadlocks nor loops")
    func selfCancelAndSelfWrite() async {
        let a = Stored(name: "a", wrappedValue: 0)
        let counter = Stored(name: "counter", wrappedValue: 0)
        var seen: [Int] = []
        var token: AnyCancellable?
        token = withGraphTracking {
            withGraphTrackingMap { a.wrappedValue } onChange: { value in
                seen.append(value)
                if value == 2 { token?.cancel() }
            }
        }
        var writerRuns = 0
        var watched: [Int] = []
        let writer = withGraphTracking {
            withGraphTrackingGroup {
                writerRuns += 1
                counter.wrappedValue = counter.wrappedValue + 1   // reads, then writes what it read
            }
            withGraphTrackingGroup {
                watched.append(counter.wrappedValue)
            }
        }
        a.wrappedValue = 1
        await Self.drainMainActor()
        a.wrappedValue = 2
        await Self.drainMainActor()
        a.wrappedValue = 3
        await Self.drainMainActor()
        #expect(seen == [0, 1, 2])
        #expect(writerRuns == 1, "its own write does not run it again")
        #expect(counter.wrappedValue == 1)
        #expect(watched == [1], "the watcher started after the write")
        counter.wrappedValue = 10
        await Self.drainMainActor()
        await Self.drainMainActor()
        #expect(writerRuns == 2, "one run for the outside write, none for its own")
        #expect(counter.wrappedValue == 11)
        #expect(await eventually { watched.last == 11 }, "the writer's write reaches the other scope")
        writer.cancel()
    }

    @Test("a group or map outside any withGraphTracking scope does nothing")
    func outsideAScope() {
        let a = Stored(name: "a", wrappedValue: 0)
        let fired = Counter()
        withGraphTrackingGroup { fired.bump(); _ = a.wrappedValue }
        withGraphTrackingMap { a.wrappedValue } onChange: { _ in fired.bump() }
        a.wrappedValue = 1
        #expect(fired.count == 0)
    }
}
