import Foundation
import Observation
import StateGraph
import Testing
import TestSupport

/// Observing nodes: one-shot tracking, subscriptions, async values, batches, Observation.
@Suite("tracking")
struct TrackingTests {
    @Test("withGraphObservationTracking fires once, after the change has spread, with the new value readable")
    func oneShot() {
        let model = DiamondModel()
        let seen = Recorded<String>()
        let fired = Counter()
        withGraphObservationTracking {
            _ = model.sum
        } onChange: {
            fired.bump()
            seen.append(model.sum)
        }
        model.base = 2
        model.base = 3
        #expect(fired.count == 1)
        #expect(seen.all == ["20+200"])
    }

    @Test("withGraphObservationTracking does not fire for nodes it did not read")
    func untrackedNodes() {
        let model = DiamondModel()
        let fired = Counter()
        withGraphObservationTracking { _ = model.other } onChange: { fired.bump() }
        model.base = 9
        #expect(fired.count == 0)
        model.other = 1
        #expect(fired.count == 1)
    }

    @Test("a batch applies several writes and notifies once, with every write visible")
    func batch() {
        let first = Stored(name: "first", wrappedValue: "Grace")
        let last = Stored(name: "last", wrappedValue: "Hopper")
        let full = Computed { _ in "\(first.wrappedValue) \(last.wrappedValue)" }
        let seen = Recorded<String>()
        let subscription = GraphSubscription({ full.wrappedValue }, onChange: { seen.append($0) })
        withGraphBatch {
            first.wrappedValue = "Ada"
            #expect(full.wrappedValue == "Ada Hopper", "a read inside the batch sees the write")
            last.wrappedValue = "Lovelace"
            #expect(seen.all.isEmpty, "notified before the batch ended")
        }
        #expect(seen.all == ["Ada Lovelace"])
        #expect(!subscription.isCancelled)
    }

    @Test("withObservationTracking sees stored and computed nodes change")
    func observationCompatibility() {
        let model = DiamondModel()
        let storedFired = Counter()
        let computedFired = Counter()
        withObservationTracking { _ = model.base } onChange: { storedFired.bump() }
        withObservationTracking { _ = model.sum } onChange: { computedFired.bump() }
        model.other = 3
        #expect(storedFired.count == 0 && computedFired.count == 0)
        model.base = 4
        #expect(storedFired.count == 1)
        #expect(computedFired.count == 1)
        // One-shot, as Observation's own: a second change does not fire again.
        model.base = 5
        #expect(storedFired.count == 1 && computedFired.count == 1)
        #expect(model.sum == "50+500")
    }

    @Test("withObservationTracking on a cached computed node still fires when a dependency changes")
    func observationOnCachedComputed() {
        let model = DiamondModel()
        _ = model.sum   // computed and cached before tracking starts
        let fired = Counter()
        withObservationTracking { _ = model.sum } onChange: { fired.bump() }
        model.base = 2
        #expect(fired.count == 1)
    }

    @Test("withObservationTracking on a fresh word-sized computed node (read without the lock) fires")
    func observationOnLockFreeComputed() {
        let model = DiamondModel()
        let fired = Counter()
        // `left` is fresh but was only read by `sum`'s rule: the tracked read must still arm it.
        _ = model.sum
        withObservationTracking { _ = model.left } onChange: { fired.bump() }
        model.base = 2
        #expect(fired.count == 1)
        _ = model.left
        _ = model.left   // fresh and already observed: this read takes no lock
        withObservationTracking { _ = model.left } onChange: { fired.bump() }
        model.base = 4
        #expect(fired.count == 2)
        #expect(model.left == 40)
        // The first read after a change re-arms the node's notification; the next change fires again.
        withObservationTracking { _ = model.left } onChange: { fired.bump() }
        model.base = 3
        #expect(fired.count == 3)
    }

    @Test("values() yields the current value, then each new one")
    func asyncValues() async throws {
        let count = Stored(wrappedValue: 0)
        let doubled = Computed { _ in count.wrappedValue * 2 }
        var iterator = doubled.values().makeAsyncIterator()
        #expect(await iterator.next() == 0)
        count.wrappedValue = 1
        #expect(await iterator.next() == 2)
        count.wrappedValue = 5
        #expect(await iterator.next() == 10)
    }

    @Test("a stored node's binding reads and writes the node")
    func binding() {
        let flag = Stored(wrappedValue: false)
        let text = Computed { _ in flag.wrappedValue ? "on" : "off" }
        let binding = flag.binding
        binding.value.toggle()
        #expect(flag.wrappedValue)
        #expect(text.wrappedValue == "on")
    }

    @Test("tracking that never fires keeps nothing alive once the nodes it read are gone")
    func unfiredTrackingOfNodesThatGoAway() {
        final class Token: Sendable {}
        weak var token: Token?
        weak var node: Stored<Int>?
        do {
            let stored = Stored(name: "short-lived", wrappedValue: 1)
            let computed = Computed(name: "reader") { _ in stored.wrappedValue * 2 }
            let held = Token()
            token = held
            node = stored
            withGraphObservationTracking { _ = computed.wrappedValue } onChange: { _ = held }
        }
        // The nodes hold the observer until it fires; it held them back, so neither ever went.
        #expect(node == nil)
        #expect(token == nil, "the onChange closure (and the observer, and the nodes' cores) outlived the nodes")
    }
}

/// Observers that write.
@Suite("tracking feedback")
struct TrackingFeedbackTests {
    @Test("a subscription whose onChange writes a node it reads runs again instead of deadlocking")
    func subscriptionWritesItsOwnDependency() {
        let value = Stored(wrappedValue: 0)
        let seen = Recorded<Int>()
        let subscription = GraphSubscription({ value.wrappedValue }, onChange: { current in
            seen.append(current)
            if current < 3 { value.wrappedValue = current + 1 }
        })
        value.wrappedValue = 1
        #expect(seen.all == [1, 2, 3])
        #expect(value.wrappedValue == 3)
        subscription.cancel()
    }
}
