import Foundation
import Observation
import Synchronization
@testable import FileStorageKit
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

@Suite("ModelPersistence: instances sharing a file")
struct SharingTests {
    @Test("a second instance sees a value set by the first (reload through the change monitor)")
    func secondInstanceSees() throws {
        try withMemoryLocation { _ in
            let first = SomeModel(string: "hello", bool: false, bool2: false)
            let second = SomeModel(string: "other init", bool: false, bool2: false)
            #expect(first.string == "hello")
            #expect(second.string == "hello")   // the file (written by the first) wins
            first.string = "changed"
            #expect(waitUntil(timeout: .seconds(5)) { second.string == "changed" })
            first.bool = true
            #expect(waitUntil(timeout: .seconds(5)) { second.bool })
        }
    }

    @Test("another writer's change reaches withObservationTracking's onChange without a read, on the change thread", arguments: [false, true])
    func anotherWritersChangeIsAnnouncedToObservation(onDisk: Bool) async throws {
        let body = { () async in
            let observed = SomeModel(string: "hello", bool: false, bool2: false)
            let writer = SomeModel(string: "hello", bool: false, bool2: false)
            _ = observed.string
            let fired = Mutex<String?>(nil)
            withObservationTracking({ _ = observed.string }, onChange: { fired.withLock { $0 = ThreadName.current } })
            writer.string = "from the writer"
            // Nobody reads `observed`: the change arrives by itself.
            #expect(await waitUntil(timeout: .seconds(120)) { fired.withLock { $0 } != nil })
            #expect(fired.withLock { $0 } == "fsk-changes")
            #expect(observed.string == "from the writer")   // the value comes with the next get
        }
        if onDisk { try await withTemporaryLocation { _ in await body() } } else { try await withMemoryLocation { _ in await body() } }
    }

    @Test("gets are served from memory: 1,000 gets of an unchanged file read it no more")
    func getsStayInMemory() throws {
        try withMemoryLocation { _ in
            let model = SomeModel(string: "hello", bool: false, bool2: false)
            model.string = "set"
            // The write's own event arrives later and causes one reload; wait until it has.
            #expect(waitUntil(timeout: .seconds(5)) { _ = model.string; return model._$persistence.gate.isFresh })
            let loads = model._$persistence.state.withLock { $0.loadCount }
            for _ in 0..<1_000 { #expect(model.string == "set") }
            // A late event from the instance's own earlier write may still cause one reload; 1,000 gets
            // that each read the file (DocumentData's design) would add 1,000.
            #expect(model._$persistence.state.withLock { $0.loadCount } <= loads + 1)
        }
    }

    @Test("two instances setting different properties keep both")
    func differentPropertiesKeepBoth() throws {
        try withTemporaryLocation { _ in
            let first = SomeModel(string: "s0", bool: false, bool2: false)
            let second = SomeModel(string: "s0", bool: false, bool2: false)
            _ = first.string
            _ = second.string
            first.string = "from first"
            second.bool = true        // merges into the newest file, whatever second has seen so far
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored["string"] == .string("from first"))
            #expect(stored["bool"] == .bool(true))
            #expect(second.string == "from first")   // the write brought in the first's change
            let third = SomeModel(string: "", bool: false, bool2: false)
            #expect(third.string == "from first" && third.bool)
        }
    }

    @Test("a set merges into the newest file even before the change monitor has noticed the change")
    func setMergesIntoNewestFile() throws {
        try withTemporaryLocation { _ in
            let model = SomeModel(string: "mine", bool: false, bool2: false)
            _ = model.string
            // First the event of the first use's own write must have arrived (it may come late on a busy
            // machine), then memory must be fresh; only then is a later reload proof of a new change.
            #expect(waitUntil(timeout: .seconds(5)) { (model._$persistence.setup?.monitor.changeToken ?? 0) > 0 })
            #expect(waitUntil(timeout: .seconds(5)) { _ = model.string; return model._$persistence.gate.isFresh })
            // Another writer changes the file in place through a descriptor it keeps open: no event the
            // monitor listens for is raised until it closes, so the model has not seen the change.
            let other = try PlistValue.dictionary(["string": .string("theirs"), "bool": .bool(false)]).serialized(as: .binary)
            let handle = try FileHandle(forWritingTo: SomeModel.url)
            defer { try? handle.close() }
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: other)
            try handle.synchronize()
            #expect(model.string == "mine")   // served from memory: the monitor saw nothing
            model.bool = true
            let stored = try storedDictionary(SomeModel.url)
            #expect(stored["string"] == .string("theirs"))   // merged into the newest file, not overwritten
            #expect(stored["bool"] == .bool(true))
            #expect(model.string == "theirs")   // and the write brought the other writer's change in
        }
    }

    @Test("update from several threads and instances loses no increment")
    func updateFromThreads() throws {
        try withTemporaryLocation { _ in
            let instances = [Counter(), Counter()]
            for instance in instances { _ = instance.count }   // resolves the folder in this task
            let shared = Shared(value: instances)
            let threads = 4, perThread = 50
            let failures = Flag()
            DispatchQueue.concurrentPerform(iterations: threads) { index in
                let counter = shared.value[index % 2]
                for _ in 0..<perThread {
                    do { try counter.update { $0.count += 1 } } catch { failures.raise() }
                }
            }
            #expect(failures.count == 0)
            let stored = try storedDictionary(Counter.url)
            #expect(stored["count"] == .int(threads * perThread))
            let fresh = Counter()
            #expect(fresh.count == threads * perThread)
            let seen = try instances[0].update { $0.count }
            #expect(seen == threads * perThread)
        }
    }

    @Test("async updates from many tasks lose no increment, alone and while other tasks read (a refresh that read the file before an update must not land after it)",
          arguments: [(perTask: 10, readers: 0), (perTask: 40, readers: 3)])
    func asyncUpdatesFromTasksLoseNothing(perTask: Int, readers: Int) async throws {
        try await withTemporaryLocation { _ in
            let counter = Counter()
            _ = counter.count
            let shared = Shared(value: counter)
            let tasks = 8
            let finished = FinishedCount()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        for _ in 0..<perTask { try await shared.value.update { $0.count += 1 } }
                        finished.count.add(1, ordering: .relaxed)
                    }
                }
                // Reads refresh the instance from the file whenever its change token moved (each
                // update's own rename moves it): such a refresh must never put an older file's value
                // over what a later update read.
                for _ in 0..<readers {
                    group.addTask {
                        while finished.count.load(ordering: .relaxed) < tasks { _ = shared.value.count; await Task.yield() }
                    }
                }
                try await group.waitForAll()
            }
            let stored = try storedDictionary(Counter.url)
            #expect(stored["count"] == .int(tasks * perTask))
            #expect(counter.count == tasks * perTask)
        }
    }

    @Test("update returns the body's result and rethrows its error after writing what it set")
    func updateResultAndErrors() throws {
        struct Stop: Error {}
        try withTemporaryLocation { _ in
            let counter = Counter()
            let result = try counter.update { c -> Int in c.count = 41; return c.count + 1 }
            #expect(result == 42)
            #expect(throws: Stop.self) { try counter.update { c in c.count = 7; throw Stop() } }
            let stored = try storedDictionary(Counter.url)
            #expect(stored["count"] == .int(7))
        }
    }

    @Test("withBatch of 10,000 sets writes the file once")
    func batchWritesOnce() throws {
        try withTemporaryLocation { _ in
            let counter = Counter()
            _ = counter.count
            let before = writeCount(counter)
            let inode = try FileManager.default.attributesOfItem(atPath: Counter.url.path)[.systemFileNumber] as? Int
            counter.withBatch { c in
                for i in 1...10_000 { c.count = i }
                #expect((try? storedDictionary(Counter.url))?["count"] == .int(0))   // nothing written yet
            }
            #expect(writeCount(counter) == before + 1)
            #expect(try storedDictionary(Counter.url)["count"] == .int(10_000))
            let after = try FileManager.default.attributesOfItem(atPath: Counter.url.path)[.systemFileNumber] as? Int
            #expect(inode != after)
            // Nested batches write when the outermost ends.
            counter.withBatch { c in
                c.withBatch { $0.count = 1 }
                #expect(writeCount(counter) == before + 1)
                c.count = 2
            }
            #expect(writeCount(counter) == before + 2)
        }
    }

    @Test("flush inside a batch writes the pending sets now")
    func flushInBatch() throws {
        try withTemporaryLocation { _ in
            let counter = Counter()
            try counter.withBatch { c in
                c.count = 5
                try c.flush()
                #expect(try storedDictionary(Counter.url)["count"] == .int(5))
            }
        }
    }

    @Test("withObservationTracking fires on a set, and on a reload brought in by another instance's write")
    func observation() throws {
        try withMemoryLocation { _ in
            let first = SomeModel(string: "a", bool: false, bool2: false)
            let second = SomeModel(string: "a", bool: false, bool2: false)
            _ = second.string
            let onSet = Flag()
            withObservationTracking { _ = first.string } onChange: { onSet.raise() }
            first.string = "b"
            #expect(onSet.count == 1)

            let onReload = Flag()
            withObservationTracking { _ = second.string } onChange: { onReload.raise() }
            let unrelated = Flag()
            withObservationTracking { _ = second.bool } onChange: { unrelated.raise() }
            first.string = "c"
            // The reload happens on the second instance's next use of any property.
            #expect(waitUntil(timeout: .seconds(5)) { _ = second.bool; return onReload.count == 1 })
            #expect(second.string == "c")
            #expect(unrelated.count == 0)   // only the changed property is assigned
        }
    }
}

/// How many updating tasks of `asyncUpdatesFromTasksLoseNothing` are done.
private final class FinishedCount: Sendable {
    let count = Atomic<Int>(0)
}
