import StateGraph
import Testing

/// `withStateGraphTrackingStream` and `observe()`: a tracking scope whose runs feed an async stream.
@Suite("tracking streams")
struct TrackingStreamTests {
    @Test("observe() has the value now, then each change (an equal set is none); two streams each get every value")
    func observe() async {
        let count = Stored(name: "count", wrappedValue: 0)
        let first = count.observe()
        let second = count.observe()
        var iterator = first.makeAsyncIterator()
        var other = second.makeAsyncIterator()
        #expect(await iterator.next() == 0, "the first value is there before any change")
        #expect(await other.next() == 0)
        for value in [1, 1, 2] { count.wrappedValue = value }
        // Runs come from tasks and may coalesce: read until the newest value arrives.
        var seen: [Int] = []
        while seen.last != 2, let next = await iterator.next() { seen.append(next) }
        #expect(seen == [1, 2] || seen == [2], "\(seen): the equal set made no run")
        var seenOther: [Int] = []
        while seenOther.last != 2, let next = await other.next() { seenOther.append(next) }
        #expect(seenOther.last == 2)
    }

    @MainActor
    @Test("a stream made on the main actor runs there, coalesces, and stops tracking when the consumer stops")
    func mainActorStream() async {
        let a = Stored(name: "a", wrappedValue: 0)
        let b = Stored(name: "b", wrappedValue: 0)
        var runs = 0
        var stream: AsyncStream<String>? = withStateGraphTrackingStream(apply: {
            runs += 1
            return "\(a.wrappedValue),\(b.wrappedValue)"
        })
        var iterator = stream!.makeAsyncIterator()
        #expect(await iterator.next() == "0,0")
        a.wrappedValue = 1
        b.wrappedValue = 2
        await TrackingScopeTests.drainMainActor()
        #expect(runs == 2, "two writes before the run: one run")
        #expect(await iterator.next() == "1,2")
        stream = nil
        iterator = AsyncStream<String> { $0.finish() }.makeAsyncIterator()
        a.wrappedValue = 5
        await TrackingScopeTests.drainMainActor()
        #expect(runs == 2, "a stream nobody holds stops tracking")
    }
}
