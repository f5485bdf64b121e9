import StateGraph
import Testing

/// `GraphTrackings`: a closure's values now and after each change of what it read, as an async
/// sequence, pulled by its consumer.
@Suite("graph trackings")
struct GraphTrackingsTests {
    struct Overflow: Error, Equatable {
        let value: Int
    }

    @Test("the first value at once, then one per change, changes between two reads coalesced into one run")
    func valuesAndCoalescing() async {
        let first = Stored(name: "first", wrappedValue: "John")
        let last = Stored(name: "last", wrappedValue: "Doe")
        let runs = Counter()
        var iterator = GraphTrackings({
            runs.bump()
            return "\(first.wrappedValue) \(last.wrappedValue)"
        }).makeAsyncIterator()
        #expect(await iterator.next() == "John Doe", "start with the current value")
        first.wrappedValue = "Jane"
        #expect(await iterator.next() == "Jane Doe")
        last.wrappedValue = "Smith"
        first.wrappedValue = "Janet"
        #expect(await iterator.next() == "Janet Smith")
        #expect(runs.count == 3, "two changes before a read: one run")
    }

    @Test("a node read only in a branch not taken wakes nothing; switching branches moves the tracking")
    func dynamicTracking() async {
        let useA = Stored(name: "useA", wrappedValue: true)
        let a = Stored(name: "a", wrappedValue: "A")
        let b = Stored(name: "b", wrappedValue: "B")
        var iterator = GraphTrackings({ useA.wrappedValue ? a.wrappedValue : b.wrappedValue }).makeAsyncIterator()
        #expect(await iterator.next() == "A")
        b.wrappedValue = "B2"
        #expect(!iterator.isChangePending, "b is not read")
        #expect((a.observerCount, b.observerCount) == (1, 0))
        useA.wrappedValue = false
        #expect(iterator.isChangePending)
        #expect(await iterator.next() == "B2")
        #expect((a.observerCount, b.observerCount) == (0, 1), "a is no longer read")
        b.wrappedValue = "B3"
        #expect(await iterator.next() == "B3")
    }

    @Test("untilFinished: a closure that writes a node it read does not wake itself, and .finish ends the sequence")
    func untilFinished() async {
        let iterations = Stored(name: "iterations", wrappedValue: 0)
        let value = Stored(name: "value", wrappedValue: 0)
        var iterator = GraphTrackings<Int, Never>.untilFinished({
            iterations.wrappedValue += 1
            return iterations.wrappedValue > 3 ? .finish : .next(value.wrappedValue)
        }).makeAsyncIterator()
        var seen: [Int] = []
        #expect(await iterator.next() == 0)
        #expect(!iterator.isChangePending, "its own write did not wake it")
        seen.append(0)
        for next in [10, 20, 30] {
            value.wrappedValue = next
            if let element = await iterator.next() { seen.append(element) }
        }
        #expect(seen == [0, 10, 20])
        #expect(await iterator.next() == nil)
        #expect(value.observerCount == 0 && iterations.observerCount == 0, "a finished sequence watches nothing")
    }

    @Test("a thrown error ends the sequence with that error, typed")
    func throwingClosure() async throws {
        let count = Stored(name: "count", wrappedValue: 1)
        var iterator = GraphTrackings({ () throws(Overflow) -> Int in
            if count.wrappedValue > 5 { throw Overflow(value: count.wrappedValue) }
            return count.wrappedValue
        }).makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        count.wrappedValue = 9
        do {
            _ = try await iterator.next()
            Issue.record("no error")
        } catch {
            #expect(error == Overflow(value: 9))
        }
        #expect(try await iterator.next() == nil)
        #expect(count.observerCount == 0)
    }

    @Test("two loops over one sequence each get every change")
    func multipleConsumers() async {
        let x = Stored(name: "x", wrappedValue: 1)
        let y = Stored(name: "y", wrappedValue: 2)
        let sequence = GraphTrackings({ x.wrappedValue + y.wrappedValue })
        var one = sequence.makeAsyncIterator()
        var two = sequence.makeAsyncIterator()
        #expect(await one.next() == 3)
        #expect(await two.next() == 3)
        x.wrappedValue = 5
        #expect(await one.next() == 7)
        y.wrappedValue = 10
        #expect(await one.next() == 15)
        #expect(await two.next() == 15)
    }

    @Test("cancelling the consuming task ends its loop and the tracking")
    func cancellation() async {
        let value = Stored(name: "value", wrappedValue: 0)
        let received = Recorded<Int>()
        let task = Task {
            for await element in GraphTrackings({ value.wrappedValue }) { received.append(element) }
        }
        #expect(await eventually { received.all == [0] && value.observerCount == 1 })
        value.wrappedValue = 1
        #expect(await eventually { received.all == [0, 1] })
        task.cancel()
        await task.value
        value.wrappedValue = 2
        #expect(received.all == [0, 1])
        #expect(value.observerCount == 0, "the ended loop's iterator is gone and watches nothing")
    }

    @MainActor
    @Test("the closure runs on its own isolation: a main-actor closure on the main actor, whoever writes")
    func mainActorClosure() async {
        let count = Stored(name: "count", wrappedValue: 0)
        var onMain = 0
        let sequence = GraphTrackings<Int, Never>.untilFinished {
            MainActor.assertIsolated()
            onMain += 1
            return .next(count.wrappedValue)
        }
        var iterator = sequence.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        await Task.detached { count.wrappedValue = 4 }.value
        #expect(await iterator.next() == 4)
        #expect(onMain == 2)
    }

    /// Invariant: no change is lost between a run and the next wait — after the writers stop, the
    /// consumer gets the final value, however the writes interleaved with its runs.
    @Test("two threads writing while a consumer iterates: the final value always arrives")
    func concurrentWritersLoseNothing() async {
        for round in 0..<20 {
            let a = Stored(name: "a", wrappedValue: 0)
            let b = Stored(name: "b", wrappedValue: 0)
            let seen = Recorded<Int>()
            let consumer = Task {
                for await sum in GraphTrackings({ a.wrappedValue + b.wrappedValue }) {
                    seen.append(sum)
                    if sum == 4_000 { return }
                }
            }
            let finished = await finishOnThreads(
                { for value in 1...2_000 { a.wrappedValue = value }; return true },
                { for value in 1...2_000 { b.wrappedValue = value }; return true })
            #expect(finished != nil)
            let arrived = await eventually(timeout: .seconds(30)) { seen.all.last == 4_000 }
            #expect(arrived, "round \(round): the last value seen was \(seen.all.last ?? -1)")
            consumer.cancel()
            await consumer.value
            #expect(seen.all == seen.all.sorted(), "values only grow")
        }
    }
}
