@testable import FileStorageKit
import Foundation
import PlistCodec
import Synchronization
import Testing
import TestSupport

/// A document does not read back what it wrote itself: the inotify hub recognizes the rename of its
/// own temporary file, so that event moves the token without counting as another writer's change.
/// Everything else still does: another document, another writer's rename, an in-place rewrite.
@Suite(.enabled(if: InotifyHub.shared != nil, "needs inotify"))
struct OwnWriteTests {
    static func counter(_ folder: TemporaryFolder) -> PlistDocument<Int> {
        PlistDocument(fileName: "count.plist", in: .folder(folder.url), coding: .init(
            empty: { 0 },
            decode: { try PlistDecoder().decode([String: Int].self, from: $0)["count"] ?? 0 },
            encode: { new, _ in try PlistEncoder().encode(["count": new]) }))
    }

    static func bytes(_ count: Int) throws -> Data { try PlistEncoder().encode(["count": count]) }

    /// Writes `count` through `document` and waits until the rename's own event has moved its token.
    static func writeAndWaitForItsEvent(_ document: PlistDocument<Int>, _ count: Int) async throws {
        let before = document.changeToken
        try await document.update { $0 = count }
        #expect(await waitUntil(timeout: .seconds(120)) { document.changeToken != before })
    }

    @Test func anOwnWriteIsNotReadBack() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let document = Self.counter(folder)
        try await Self.writeAndWaitForItsEvent(document, 1)   // the first write also switches to inotify
        for count in 2...6 {
            // The kernel's queue overflowing (other tests' events) makes every file count as changed.
            let overflows = InotifyHub.shared?.overflowMark()
            // So does a child process, spawned by another test at the moment of the write, closing the
            // temporary file's descriptor it inherited after the rename (see `ChangeCounter.closeWrites`).
            let lateCloses = document.monitor.closeWriteEvents
            let externalBefore = document.monitor.externalChanges
            try await Self.writeAndWaitForItsEvent(document, count)
            let reads = document.fileReadCount
            let vouched = document.cacheVouchesForOwnWrites
            #expect(try document.read() == count)
            if document.monitor.closeWriteEvents != lateCloses {
                print("OwnWriteTests: write \(count) was closed late by a spawned child; its read check is skipped")
            } else if let overflows, InotifyHub.shared?.overflowed(since: overflows) == false {
                // What to look at when it fails: whether another writer's change was counted (the
                // hub did not match the rename), or the cache had stopped vouching for own writes.
                #expect(document.fileReadCount == reads, """
                    the document read back its own write \(count): external changes \
                    \(externalBefore.map(String.init) ?? "nil") before the write, \
                    \(document.monitor.externalChanges.map(String.init) ?? "nil") after the read; \
                    the cache vouched for own writes: \(vouched)
                    """)
            }
        }
        #expect(document.monitor.externalChanges != nil)
        // Each update still re-read the file once, under the lock.
        #expect(try Self.bytes(6) == Data(contentsOf: folder.file("count.plist")))
    }

    /// A child process spawned while a write's temporary file is open holds the descriptor until its
    /// `exec`; if the rename comes first, the close the kernel reports names the file itself, which is
    /// what an in-place writer looks like. The invariant: that costs a read, never a wrong value; and
    /// apart from such closes (and queue overflows), own writes still cost none.
    @Test func aSpawnedChildsLateCloseCostsOneReadAndNothingElse() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let document = Self.counter(folder)
        try await Self.writeAndWaitForItsEvent(document, 0)
        let stop = Atomic<Bool>(false)
        let spawned = Atomic<Int>(0)
        // Two spawners: more children in flight during each write's open descriptor.
        for _ in 0..<2 {
            Thread {
                while !stop.load(ordering: .relaxed) {
                    guard let child = try? ChildProcess.start(URL(fileURLWithPath: "/bin/true"), []) else { continue }
                    while child.termination == nil { child.poll(); usleep(200) }
                    spawned.add(1, ordering: .relaxed)
                }
            }.start()
        }
        defer { stop.store(true, ordering: .relaxed) }
        let overflows = InotifyHub.shared?.overflowMark()
        let lateCloses = document.monitor.closeWriteEvents
        let reads = document.fileReadCount
        let writes = 60
        for count in 1...writes {
            try await Self.writeAndWaitForItsEvent(document, count)
            #expect(try document.read() == count)
        }
        // Every late close's event has been read once the token has moved past it; wait for a final
        // write's own event, so each earlier event was read and counted before the totals.
        try await Self.writeAndWaitForItsEvent(document, writes + 1)
        #expect(try document.read() == writes + 1)
        stop.store(true, ordering: .relaxed)
        // Each update reads the file once under its lock; any read beyond those came from an event.
        let extra = document.fileReadCount - reads - (writes + 1)
        let late = document.monitor.closeWriteEvents - lateCloses
        print("OwnWriteTests: \(writes + 1) writes beside \(spawned.load(ordering: .relaxed)) spawned children: \(late) late closes, \(extra) reads besides the updates' own")
        if let overflows, InotifyHub.shared?.overflowed(since: overflows) == false {
            #expect(extra <= late, "reads beyond the late closes: own writes were read back")
        }
        #expect(try Self.bytes(writes + 1) == Data(contentsOf: folder.file("count.plist")))
    }

    @Test func anotherWritersRenameRightAfterAnOwnWriteIsRead() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let document = Self.counter(folder)
        try await Self.writeAndWaitForItsEvent(document, 1)
        for count in 2...6 {
            // Both renames before either event is read: only the other one is external.
            try await document.update { $0 = count }
            try DurableFile.write(try Self.bytes(count * 100), to: folder.file("count.plist"))
            #expect(await waitUntil(timeout: .seconds(120)) { (try? document.read()) == count * 100 })
        }
    }

    @Test func anotherDocumentOnTheSameFileIsAnotherWriter() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let mine = Self.counter(folder), theirs = Self.counter(folder)
        try await Self.writeAndWaitForItsEvent(mine, 1)
        #expect(try theirs.read() == 1)
        for count in 2...6 {
            try await Self.writeAndWaitForItsEvent(theirs, count)
            #expect(await waitUntil(timeout: .seconds(120)) { (try? mine.read()) == count })
        }
    }

    @Test func anInPlaceRewriteIsMergedByTheNextUpdateAndReadOnceClosed() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let document = Self.counter(folder)
        try await Self.writeAndWaitForItsEvent(document, 1)
        try await Self.writeAndWaitForItsEvent(document, 2)
        // Rewritten in place through a descriptor kept open: no event until it closes.
        let handle = try FileHandle(forWritingTo: folder.file("count.plist"))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try Self.bytes(40))
        try handle.synchronize()
        // The update reads the file under the lock whatever the token says, so it starts from 40.
        try await document.update { $0 += 2 }
        #expect(try Data(contentsOf: folder.file("count.plist")) == (try Self.bytes(42)))
        try handle.close()
        #expect(try document.read() == 42)

        // Once more after an own write whose event has arrived: closing the rewrite is an external change.
        try await Self.writeAndWaitForItsEvent(document, 3)
        let again = try FileHandle(forWritingTo: folder.file("count.plist"))
        try again.truncate(atOffset: 0)
        try again.write(contentsOf: try Self.bytes(50))
        try again.close()
        #expect(await waitUntil(timeout: .seconds(120)) { (try? document.read()) == 50 })
    }

    /// A read made after an own write's rename has moved the token, before that write has recorded
    /// its bytes as the cache: it must not take the cached (older) content for the new token. (A
    /// `DefaultsSuite` refreshing on the change thread then kept the old values as current, and a
    /// `settings watch` in the writing process never saw the change.)
    @Test func aReadBetweenAnOwnRenameAndItsCacheSeesTheNewBytes() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let probe = MidWriteProbe()
        let document = PlistDocument<Int>(fileName: "count.plist", in: .folder(folder.url), coding: .init(
            empty: { 0 },
            decode: { try PlistDecoder().decode([String: Int].self, from: $0)["count"] ?? 0 },
            encode: { new, _ in try PlistEncoder().encode(["count": new]) },
            // Runs after the rename, before the document caches what it wrote.
            written: { _, content in
                probe.afterRename()
                return content
            }))
        probe.document.withLock { $0 = UncheckedSendable(document) }
        // The document holds the probe (its `written`), so the probe lets go of it at the end.
        defer { probe.document.withLock { $0 = nil } }
        try await Self.writeAndWaitForItsEvent(document, 1)
        #expect(try document.read() == 1)   // the cache now vouches for the token's own moves

        probe.armed.withLock { $0 = document.changeToken }
        // On a plain thread: the probe waits for the rename's event inside the write.
        Thread {
            _ = try? document.update { $0 = 2 }
            probe.finished.store(true, ordering: .releasing)
        }.start()
        #expect(await waitUntil(timeout: .seconds(120)) { probe.finished.load(ordering: .acquiring) })
        let seen = try #require(probe.seen.withLock { $0 })
        #expect(seen.tokenMoved, "the rename's event did not arrive during the write")
        #expect(seen.value == 2, "a read after the own rename got the content from before it")
        #expect(try document.read() == 2)
    }

    /// A read that a write overlapped (it read the new bytes after the rename, while the write was
    /// still finishing) and that ends after the write recorded its bytes leaves the write's record in
    /// the cache. (It used to replace it with its own, which cannot vouch for the write's event, so
    /// the next read after that event went to the file: a set in ModelPersistence read the file three
    /// times when its change thread's read straddled the end of the write.)
    @Test func aReadThatAWriteOverlappedKeepsTheWritesRecord() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let probe = StraddlingReadProbe()
        let document = PlistDocument<Int>(fileName: "count.plist", in: .folder(folder.url), coding: .init(
            empty: { 0 },
            decode: { bytes in
                probe.holdIfArmed()
                return try PlistDecoder().decode([String: Int].self, from: bytes)["count"] ?? 0
            },
            encode: { new, _ in try PlistEncoder().encode(["count": new]) },
            // Runs after the rename, before the document records what it wrote: starts the reader and
            // lets the write finish once the reader holds the new bytes.
            written: { _, content in
                probe.startReaderIfArmed()
                return content
            }))
        probe.document.withLock { $0 = UncheckedSendable(document) }
        defer { probe.document.withLock { $0 = nil } }
        try await Self.writeAndWaitForItsEvent(document, 1)
        #expect(try document.read() == 1)
        #expect(document.cacheVouchesForOwnWrites)

        probe.arm()
        let before = document.changeToken
        try await document.update { $0 = 2 }
        // The write has recorded its bytes; now the reader, which read them after the rename, ends.
        probe.release()
        #expect(await waitUntil(timeout: .seconds(120)) { probe.finished.load(ordering: .acquiring) })
        #expect(probe.value.withLock { $0 } == 2)
        #expect(document.cacheVouchesForOwnWrites, "the straddling read replaced the write's record")
        // So the write's own event costs no read.
        #expect(await waitUntil(timeout: .seconds(120)) { document.changeToken != before })
        let overflows = InotifyHub.shared?.overflowMark()
        let reads = document.fileReadCount
        #expect(try document.read() == 2)
        // A spawned child's late close of a temporary file counts as an outside change (see above).
        if document.monitor.closeWriteEvents == 0, let overflows, InotifyHub.shared?.overflowed(since: overflows) == false {
            #expect(document.fileReadCount == reads, "the document read back its own write")
        }
    }

    @Test func theHubMatchesOnlyAnnouncedRenames() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let monitor = FileChangeMonitor(url: folder.file("watched.plist"))
        let counter = try #require(monitor.ownWriteCounter)
        let overflows = InotifyHub.shared?.overflowMark()
        // The counts hold unless something else moved the tokens: a queue overflow, or a child process
        // (another test's) closing one of these writes' temporary files after its rename. Read the
        // external counts first: a late close is counted in `closeWriteEvents` before its bump.
        func check(_ monitors: [(FileChangeMonitor, UInt64)], _ step: String) {
            let externals = monitors.map { $0.0.externalChanges }
            let closes = monitors.reduce(0) { $0 + $1.0.closeWriteEvents }
            guard closes == 0, let overflows, InotifyHub.shared?.overflowed(since: overflows) == false else {
                print("OwnWriteTests: \(step): a late close or an overflow moved the tokens; counts not checked")
                return
            }
            #expect(externals == monitors.map { $0.1 }, "\(step)")
        }
        // Announced: the token moves, the external count does not.
        try DurableFile.write(Data("a".utf8), to: folder.file("watched.plist"), announcingTo: counter)
        #expect(await waitUntil(timeout: .seconds(120)) { monitor.changeToken >= 1 })
        check([(monitor, 0)], "announced")
        // Not announced (any other writer): both move.
        try DurableFile.write(Data("b".utf8), to: folder.file("watched.plist"))
        #expect(await waitUntil(timeout: .seconds(120)) { monitor.changeToken >= 2 })
        check([(monitor, 1)], "not announced")
        // Announced for another monitor of the same file: external for this one.
        let other = FileChangeMonitor(url: folder.file("watched.plist"))
        try DurableFile.write(Data("c".utf8), to: folder.file("watched.plist"), announcingTo: other.ownWriteCounter)
        #expect(await waitUntil(timeout: .seconds(120)) { monitor.changeToken >= 3 && other.changeToken >= 1 })
        check([(monitor, 2), (other, 0)], "announced for another monitor")
    }

    /// The hub keeps announcements in arrival order and, past its limit, forgets the oldest first: a
    /// write announced a moment ago keeps its entry however many announcements pile up after it. (The
    /// hub used to drop every entry at 256, so in a busy test process other documents' writes turned
    /// this document's own write external, and it read its own bytes back.)
    @Test func theNewestAnnouncementsOutliveTheLimitAndTheOldestGoFirst() {
        var recent = InotifyHub.Recent<String>()
        let limit = InotifyHub.Recent<String>.limit
        let mine = ChangeCounter(), others = ChangeCounter()
        recent.insert(others, for: "stale")
        recent.insert(mine, for: "mine")
        for index in 0..<(limit - 2) { recent.insert(others, for: "other-\(index)") }
        #expect(recent.count == limit)
        // One more: only the oldest goes.
        recent.insert(others, for: "one-more")
        #expect(recent.count == limit)
        #expect(recent.remove("stale") == nil)
        #expect(recent.remove("mine") === mine)
        // A name announced again is kept from its newest announcement, not its first.
        recent.insert(mine, for: "again")
        for index in 0..<(limit / 2) { recent.insert(others, for: "more-\(index)") }
        recent.insert(mine, for: "again")
        for index in 0..<(limit - 10) { recent.insert(others, for: "after-\(index)") }
        #expect(recent.remove("again") === mine)
        #expect(recent.count <= limit)
        // Announcements matched at once (the usual case) leave nothing behind: the arrival order does
        // not grow with the writes.
        var matched = InotifyHub.Recent<String>()
        for index in 0..<(limit * 10) {
            matched.insert(mine, for: "write-\(index)")
            #expect(matched.remove("write-\(index)") === mine)
        }
        #expect(matched.count == 0)
        #expect(matched.order.count <= 2 * limit + 1)
    }

    /// A monitor whose folder was removed polls; its writes announce nothing, since no event of the
    /// lost watch will ever match (each announcement would stay behind in the hub).
    @Test func aLostWatchAnnouncesNothing() async throws {
        let folder = try TemporaryFolder(prefix: "own-write")
        let watched = folder.url.appendingPathComponent("sub", isDirectory: true)
        try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: true)
        let monitor = FileChangeMonitor(url: watched.appendingPathComponent("watched.plist"))
        #expect(monitor.ownWriteCounter != nil)
        try FileManager.default.removeItem(at: watched)
        #expect(await waitUntil(timeout: .seconds(120)) { monitor.ownWriteCounter == nil })
        #expect(monitor.externalChanges == nil)
    }
}

/// What `aReadBetweenAnOwnRenameAndItsCacheSeesTheNewBytes` saw in the middle of a write.
private final class MidWriteProbe: Sendable {
    let document = Mutex<UncheckedSendable<PlistDocument<Int>>?>(nil)
    /// The token before the write to watch (`nil`: not armed).
    let armed = Mutex<UInt64?>(nil)
    let seen = Mutex<(tokenMoved: Bool, value: Int?)?>(nil)
    let finished = Atomic<Bool>(false)

    /// Waits (on the writing thread) until the rename's own event moved the token, then reads.
    func afterRename() {
        guard let before = armed.withLock({ token in defer { token = nil }; return token }),
              let document = self.document.withLock({ $0?.value }) else { return }
        let moved = waitUntil(timeout: .seconds(120)) { document.changeToken != before }
        let value = try? document.read()
        seen.withLock { $0 = (moved, value) }
    }
}

/// What `aReadThatAWriteOverlappedKeepsTheWritesRecord` uses to make a read straddle the end of a write.
private final class StraddlingReadProbe: Sendable {
    let document = Mutex<UncheckedSendable<PlistDocument<Int>>?>(nil)
    private let armed = Mutex(false)
    /// Set by the reader before its decode waits; cleared by `release`.
    private let holding = Mutex(false)
    private let entered = Atomic<Bool>(false)
    private let released = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    let value = Mutex<Int?>(nil)

    func arm() { armed.withLock { $0 = true } }

    /// On the writing thread, after the rename: a reader reads the file (a write is under way, so it
    /// cannot use the cache) and waits inside its decode.
    func startReaderIfArmed() {
        guard armed.withLock({ state in defer { state = false }; return state }),
              let document = document.withLock({ $0?.value }) else { return }
        holding.withLock { $0 = true }
        Thread { [self] in
            let read = try? document.readFresh()
            value.withLock { $0 = read }
            finished.store(true, ordering: .releasing)
        }.start()
        _ = waitUntil(timeout: .seconds(120)) { entered.load(ordering: .acquiring) }
    }

    /// In the reader's decode: waits for `release`.
    func holdIfArmed() {
        guard holding.withLock({ state in defer { state = false }; return state }) else { return }
        entered.store(true, ordering: .releasing)
        _ = waitUntil(timeout: .seconds(120)) { released.load(ordering: .acquiring) }
    }

    func release() { released.store(true, ordering: .releasing) }
}
