@testable import FileStorageKit
import Foundation
import PlistCodec
import Synchronization
import Testing
import TestSupport

/// `PlistDocument`'s rules, each checked on disk and in a `MemoryFolder`: the twin must behave the same.
@Suite struct PlistDocumentTests {
    /// Where a test's documents live; `.disk` keeps its temporary folder alive.
    enum Place: String, CaseIterable, CustomTestStringConvertible {
        case disk, memory
        var testDescription: String { rawValue }
    }

    struct Fixture {
        let storage: StorageFolder
        let temp: TemporaryFolder?
        let memory: MemoryFolder?

        init(_ place: Place) throws {
            switch place {
            case .disk:
                let temp = try TemporaryFolder(prefix: "plist-document")
                self.temp = temp
                memory = nil
                storage = .folder(temp.url)
            case .memory:
                temp = nil
                let memory = MemoryFolder()
                self.memory = memory
                storage = .memory(memory)
            }
        }

        func counter(_ name: String = "count.plist", policy: PlistDocument<Int>.CorruptFilePolicy = .report,
                     lockTimeout: Duration = .seconds(30),
                     onCorruptFile: (@Sendable (FileStorageError, URL?) -> Void)? = nil) -> PlistDocument<Int> {
            PlistDocument(fileName: name, in: storage, lockTimeout: lockTimeout, corruptFilePolicy: policy,
                          onCorruptFile: onCorruptFile, coding: .init(
                empty: { 0 },
                decode: { try PlistDecoder().decode([String: Int].self, from: $0)["count"] ?? 0 },
                encode: { new, _ in try PlistEncoder().encode(["count": new]) }))
        }

        func bytes(_ name: String) -> Data? {
            if let memory { return memory.contents(of: name) }
            return try? Data(contentsOf: temp!.file(name))
        }

        func setBytes(_ data: Data, _ name: String) throws {
            if let memory { memory.setContents(data, of: name) } else { try data.write(to: temp!.file(name)) }
        }

        func names() -> [String] {
            if let memory { return memory.fileNames }
            return ((try? FileManager.default.contentsOfDirectory(atPath: temp!.url.path)) ?? []).sorted()
        }
    }

    @Test(arguments: Place.allCases) func missingReadsEmptyAndUpdatesWriteOnlyChanges(_ place: Place) throws {
        let fixture = try Fixture(place)
        let document = fixture.counter()
        #expect(try document.read() == 0)
        #expect(fixture.bytes("count.plist") == nil, "opening and reading created the file")
        try document.update { $0 += 41 }
        try document.update { $0 += 1 }
        #expect(try document.read() == 42)
        #expect(fixture.bytes("count.plist") == (try PlistEncoder().encode(["count": 42])))
        #expect(document.writeCount == 2)
        try document.update { $0 = 42 }          // the same bytes: nothing written
        #expect(document.writeCount == 2)
        let other = fixture.counter()
        #expect(try other.readFresh() == 42)
    }

    @Test(arguments: Place.allCases) func anotherInstancesWriteIsReadAfterItsChangeIsSeen(_ place: Place) async throws {
        let fixture = try Fixture(place)
        let a = fixture.counter(), b = fixture.counter()
        #expect(try b.read() == 0)
        try await a.update { $0 = 7 }
        // The change token moves as soon as the monitor hears of the write (inotify: about a millisecond).
        let deadline = ContinuousClock.now + .seconds(120)
        while try b.read() != 7, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try b.read() == 7)
    }

    @Test(arguments: Place.allCases) func aNestedUpdateIsRefusedAndTheLockIsReentrant(_ place: Place) throws {
        let fixture = try Fixture(place)
        let document = fixture.counter(lockTimeout: .milliseconds(200))
        let twin = fixture.counter(lockTimeout: .milliseconds(200))
        try document.update { value in
            value = 1
            // The same lock again, through another instance of the same file: runs directly.
            let inner = try twin.withLock { 5 }
            #expect(inner == 5)
            // An update inside an update of the same file would be overwritten by the outer write.
            #expect(throws: FileStorageError.nestedUpdate(twin.url)) { try twin.update { $0 = 99 } }
        }
        #expect(try document.readFresh() == 1)
        try document.withLock { try document.update { $0 += 1 } }   // an update inside withLock is fine
        #expect(try document.readFresh() == 2)
    }

    @Test(arguments: Place.allCases) func aCorruptFileIsReportedAndNeverOverwritten(_ place: Place) throws {
        let fixture = try Fixture(place)
        let junk = Data("not a property list".utf8)
        try fixture.setBytes(junk, "count.plist")
        let document = fixture.counter()
        #expect(throws: FileStorageError.self) { try document.read() }
        do {
            try document.update { $0 = 1 }
            Issue.record("an update wrote over a corrupt file")
        } catch {
            guard case .corrupt(let url, _)? = error as? FileStorageError else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(url == document.url)
        }
        #expect(fixture.bytes("count.plist") == junk)
    }

    @Test(arguments: Place.allCases) func aCorruptFileIsMovedAsideWhenThePolicySaysSo(_ place: Place) throws {
        let fixture = try Fixture(place)
        let junk = Data("<plist><integer>oops".utf8)
        try fixture.setBytes(junk, "count.plist")
        let reports = Mutex<[URL?]>([])
        let document = fixture.counter(policy: .moveAside(label: "corrupt")) { error, movedTo in
            if case .corrupt = error { reports.withLock { $0.append(movedTo) } }
        }
        #expect(try document.read() == 0)
        let moved = try #require(reports.withLock { $0.first } ?? nil)
        #expect(moved.lastPathComponent.hasPrefix("count.plist.corrupt-"))
        #expect(fixture.bytes(moved.lastPathComponent) == junk, "the bytes were not kept")
        try document.update { $0 = 3 }
        #expect(try document.readFresh() == 3)
        #expect(fixture.names().filter { $0.hasPrefix("count.plist") }.count == 2)
    }

    /// Another program creating the file in place (`Data.write(to:)` without `.atomic`, DocumentData's
    /// way) is seen empty between its `open` and its `write`: under `.moveAside` that is not a corrupt
    /// file, since moving it aside would take the program's bytes with it (`.report` reports it and
    /// writes nothing over it, as CollectionStore's `FaultTests` check).
    @Test(arguments: Place.allCases) func anEmptyFileIsNotMovedAside(_ place: Place) throws {
        let fixture = try Fixture(place)
        let reports = Mutex<Int>(0)
        let document = fixture.counter(policy: .moveAside(label: "corrupt")) { _, _ in reports.withLock { $0 += 1 } }
        try fixture.setBytes(Data(), "count.plist")
        #expect(try document.read() == 0)
        #expect(try document.readFresh() == 0)
        try fixture.setBytes(try PlistEncoder().encode(["count": 5]), "count.plist")   // the writer's bytes
        #expect(try document.readFresh() == 5)
        #expect(reports.withLock { $0 } == 0)
        #expect(fixture.names().filter { $0.hasPrefix("count.plist") } == ["count.plist"])
    }

    #if os(Linux)
    /// The same race for real: a subscribed document hears the file's creation (`IN_CREATE`) while the
    /// writer still holds it empty, and reads it then.
    @Test func aFileBeingCreatedInPlaceIsNotMovedAside() async throws {
        let fixture = try Fixture(.disk)
        let document = fixture.counter(policy: .moveAside(label: "corrupt"))
        let heard = Mutex<Int>(0)
        let subscription = document.onChange {
            heard.withLock { $0 += 1 }
            _ = try? document.read()          // what a store's listener does
        }
        defer { subscription.cancel() }
        _ = try document.read()
        let url = fixture.temp!.file("count.plist")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))   // open(O_CREAT): empty
        let deadline = ContinuousClock.now + .seconds(30)
        while heard.withLock({ $0 }) == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(heard.withLock { $0 } > 0, "the creation was not heard")
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: try PlistEncoder().encode(["count": 9]))
        try handle.close()
        #expect(try document.readFresh() == 9)
        #expect(fixture.names().filter { $0.hasPrefix("count.plist") } == ["count.plist"])
    }
    #endif

    @Test(arguments: Place.allCases) func concurrentUpdatesFromTasksAllCount(_ place: Place) async throws {
        let fixture = try Fixture(place)
        let tasks = 8, each = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    let document = fixture.counter()
                    for _ in 0..<each { try await document.update { $0 += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try fixture.counter().readFresh() == tasks * each)
    }

    @Test(arguments: Place.allCases) func aHeldLockTimesOutWithATypedError(_ place: Place) throws {
        let fixture = try Fixture(place)
        let holder = fixture.counter()
        let waiter = fixture.counter(lockTimeout: .milliseconds(100))
        let released = DispatchSemaphore(value: 0), locked = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? holder.withLock {
                locked.signal()
                released.wait()
            }
        }
        thread.start()
        locked.wait()
        #expect(throws: FileStorageError.lockTimeout(waiter.url, seconds: 0.1)) { try waiter.update { $0 = 1 } }
        released.signal()
    }

    @Test(arguments: Place.allCases) func changesAreDeliveredOnTheChangeThread(_ place: Place) async throws {
        let fixture = try Fixture(place)
        let watched = fixture.counter(), writer = fixture.counter()
        try await watched.update { $0 = 1 }
        let seen = Mutex<[Int]>([])
        let threads = Mutex<Set<String>>([])
        let subscription = watched.onChange {
            threads.withLock { _ = $0.insert(ThreadName.current) }
            if let value = try? watched.read() { seen.withLock { $0.append(value) } }
        }
        try await writer.update { $0 = 2 }
        let deadline = ContinuousClock.now + .seconds(120)
        while !seen.withLock({ $0.contains(2) }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(seen.withLock { $0.contains(2) })
        #expect(threads.withLock { $0 } == ["fsk-changes"])
        subscription.cancel()
        let count = seen.withLock { $0.count }
        try await writer.update { $0 = 3 }
        // After cancelling, nothing more is delivered (give a delivery every chance to arrive first).
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.withLock { $0.count } == count)
    }
}
