@testable import FileStorageKit
import Foundation
import Synchronization
import Testing

/// The queue behind the stores' `changes()` streams: nothing lost, memory bounded, folds amortized,
/// and a stream nobody reads lets its subscription go.
@Suite struct EventMailboxTests {
    private final class Counter: Sendable {
        let value = Mutex(0)
        func bump() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    @Test func foldsThatCannotShrinkMuchRunRarelyAndLoseNothing() async {
        let folds = Counter()
        let mailbox = EventMailbox<Int>(capacity: 8) { waiting in
            folds.bump()
            var seen = Set<Int>()
            return waiting.filter { seen.insert($0).inserted }
        }
        // 10,000 pushes of 5,000 distinct values: a fold keeps thousands, so folding on every push
        // past the capacity would cost millions of steps; the doubling limit keeps it to a few dozen.
        for value in 0..<10_000 { mailbox.push(value % 5_000) }
        mailbox.finish()
        var seen = Set<Int>()
        for await value in mailbox.stream() { seen.insert(value) }
        #expect(seen == Set(0..<5_000))
        #expect(folds.count < 40, "\(folds.count) folds")
    }

    @Test func aFinishedStreamYieldsWhatWaitsThenEnds() async {
        let mailbox = EventMailbox<Int>(capacity: 4) { [$0.reduce(0, +)] }
        for value in 1...10 { mailbox.push(value) }   // folded: the sum stands for them
        mailbox.finish()
        mailbox.push(100)                              // after the end: ignored
        var received: [Int] = []
        for await value in mailbox.stream() { received.append(value) }
        #expect(received.reduce(0, +) == 55 && received.count <= 5, "\(received)")
    }

    @Test func admitDropsWhatAFoldAlreadySaid() async {
        let mailbox = EventMailbox<Int>(capacity: 2, fold: { [$0.max()!] }, admit: { $0 >= 0 })
        for value in [1, 2, 3, -1, 4] { mailbox.push(value) }
        mailbox.finish()
        var received: [Int] = []
        for await value in mailbox.stream() { received.append(value) }
        #expect(received == [3, 4])
    }

    @Test func aStreamDroppedUnreadCancelsItsSubscription() {
        let cancelled = Counter()
        var stream: AsyncStream<Int>? = {
            let mailbox = EventMailbox<Int>(capacity: 4) { $0 }
            mailbox.bind(ChangeSubscription { cancelled.bump() })
            mailbox.push(1)
            return mailbox.stream()
        }()
        #expect(cancelled.count == 0)
        _ = stream
        stream = nil   // the stream was the mailbox's one owner
        #expect(cancelled.count == 1)
    }

    @Test func cancellingAWaitingConsumerEndsItsStream() async {
        let cancelled = Counter()
        let mailbox = EventMailbox<Int>(capacity: 4) { $0 }
        mailbox.bind(ChangeSubscription { cancelled.bump() })
        let stream = mailbox.stream()
        let reader = Task { () -> Int in
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        mailbox.push(1)
        reader.cancel()
        let count = await reader.value   // returns only because cancelling ended the stream
        #expect(count <= 1)
        #expect(cancelled.count == 1)
        mailbox.push(2)                  // after the end: ignored, nothing resumed twice
    }

    @Test func aDefaultsSuiteStreamThatStopsBeingReadLetsGo() async throws {
        let defaults = DefaultsSuite(suiteName: "com.example.drop", storage: .memory(MemoryFolder()),
                                     lockTimeout: .seconds(60))
        do {
            let stream = defaults.changes()
            try defaults.set(1, forKey: "a")
            for await key in stream {
                #expect(key == "a")
                break   // the consumer stops: the stream, its mailbox and its observer go
            }
        }
        #expect(defaults.observerCount == 0)
        #expect(DefaultsSuite.eachKeyOnce(["b", "a", "b", "c", "a"]) == ["b", "a", "c"])
    }
}
