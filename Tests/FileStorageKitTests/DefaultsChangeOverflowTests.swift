import FileStorageKit
import Foundation
import Testing
import TestSupport

/// A `changes()` consumer that falls far behind must still hear every key that changed: the stream may
/// fold what waits into each key once, but never drop a key.
@Suite struct DefaultsChangeOverflowTests {
    /// More changes than a stream holds for a consumer that is behind (1,024).
    static let burst = 1_500

    @Test func aConsumerStalledPastTheBufferSeesEveryChangedKey() async throws {
        let seed = TestSeed.make()
        print("DefaultsChangeOverflowTests seed: \(seed) (replay with \(TestSeed.variable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        let defaults = DefaultsSuite(suiteName: "com.example.overflow", storage: .memory(MemoryFolder()),
                                     lockTimeout: .seconds(60))
        let stream = defaults.changes()   // nobody reads it until every change is made

        // Many distinct keys (about as many as the buffer), but few at a time: each write rewrites the
        // whole suite, so keys come and go. Values come from a small range, so some sets change nothing.
        let start = ContinuousClock.now
        var model: [String: Int] = [:]
        var changed: Set<String> = []
        var nextKey = 0
        for _ in 0..<Self.burst {
            if model.count > 60 || (!model.isEmpty && rng.chance(0.35)) {
                let key = rng.pick(Array(model.keys).sorted())
                if model.count > 60 || rng.chance(0.5) {
                    try defaults.removeObject(forKey: key)
                    model[key] = nil
                    changed.insert(key)
                } else {
                    let value = Int.random(in: 0..<3, using: &rng)
                    try defaults.set(value, forKey: key)
                    if model.updateValue(value, forKey: key) != value { changed.insert(key) }
                }
            } else {
                let key = "k\(nextKey)"
                nextKey += 1
                let value = Int.random(in: 0..<3, using: &rng)
                try defaults.set(value, forKey: key)
                model[key] = value
                changed.insert(key)
            }
        }
        try defaults.set(true, forKey: "sentinel")
        changed.insert("sentinel")
        print("DefaultsChangeOverflowTests: \(Self.burst + 1) writes took \(ContinuousClock.now - start)")

        // Read until every changed key was told (a key's notice may come after the sentinel's: the
        // suite tells some changes from its change thread), or until the watchdog gives up.
        let expected = changed
        let reader = Task { () -> (keys: Set<String>, count: Int) in
            var keys: Set<String> = [], count = 0
            for await key in stream {
                keys.insert(key)
                count += 1
                if keys.isSuperset(of: expected) { break }
            }
            return (keys, count)
        }
        // A deadline, never a condition: a key never told ends the wait here.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            reader.cancel()
        }
        let (seen, count) = await reader.value
        watchdog.cancel()
        print("DefaultsChangeOverflowTests: \(count) keys read, \(seen.count) distinct, \(changed.count) changed")
        #expect(seen == changed, "seed \(seed): \(changed.subtracting(seen).count) changed keys never told, \(seen.subtracting(changed).count) told but unchanged")
    }
}
