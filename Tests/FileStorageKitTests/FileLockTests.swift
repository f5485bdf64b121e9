import Testing
import Foundation
import Synchronization
import TestSupport
@testable import FileStorageKit
#if canImport(Glibc)
import Glibc
#endif

/// Counts the holders of a lock at once, and remembers the most ever seen.
private final class HolderCounter: Sendable {
    let current = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    let entries = Atomic<Int>(0)

    func enter() {
        let now = current.add(1, ordering: .sequentiallyConsistent).newValue
        _ = most.max(now, ordering: .sequentiallyConsistent)
        entries.add(1, ordering: .relaxed)
    }

    func leave() { current.subtract(1, ordering: .sequentiallyConsistent) }
}

/// Starts `body` on a new thread (not one of Swift's cooperative pool) and returns a flag set when it ends.
private func onThread(_ body: @escaping @Sendable () -> Void) -> Flag {
    let done = Flag()
    Thread {
        body()
        done.value.store(true, ordering: .releasing)
    }.start()
    return done
}

/// A shareable atomic count.
private final class Tally: Sendable {
    let value = Atomic<Int>(0)
    func add() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A shareable atomic flag.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
}

@Suite struct FileLockTests {
    @Test func lockFileIsBesideTheFileAndSurvives() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("deck.plist")
        #expect(FileLock.lockURL(for: url) == temp.file(".deck.plist.lock"))
        let value = try FileLock.withExclusiveLock(for: url) {
            #expect(FileManager.default.fileExists(atPath: temp.file(".deck.plist.lock").path))
            return 42
        }
        #expect(value == 42)
        #expect(try temp.entries() == [".deck.plist.lock"])
        #expect(permissionBits(temp.file(".deck.plist.lock")) == 0o600)
        // The data file itself is never created by locking.
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func twoThreadsNeverHoldItAtOnce() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("shared.plist")
        let counter = HolderCounter()
        let failures = Tally()
        let iterations = 400
        let threads = (0..<2).map { _ in
            onThread {
                for _ in 0..<iterations {
                    do {
                        try FileLock.withExclusiveLock(for: url, timeout: .seconds(60)) {
                            counter.enter()
                            for _ in 0..<50 { sched_yield() }
                            counter.leave()
                        }
                    } catch {
                        failures.add()
                    }
                }
            }
        }
        #expect(await waitUntil(timeout: .seconds(240)) { threads.allSatisfy(\.isSet) })
        #expect(failures.count == 0)
        #expect(counter.entries.load(ordering: .relaxed) == 2 * iterations)
        #expect(counter.most.load(ordering: .relaxed) == 1)
    }

    @Test func twoTasksNeverHoldItAtOnce() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("shared.plist")
        let counter = HolderCounter()
        let iterations = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<iterations {
                        try await FileLock.withExclusiveLock(for: url, timeout: .seconds(600)) {
                            counter.enter()
                            await Task.yield()
                            counter.leave()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter.entries.load(ordering: .relaxed) == 2 * iterations)
        #expect(counter.most.load(ordering: .relaxed) == 1)
    }

    @Test func timeoutThrowsLockTimeoutWithTheURL() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("busy.plist")
        let holding = Flag()
        let release = Flag()
        let holder = onThread {
            try? FileLock.withExclusiveLock(for: url) {
                holding.value.store(true, ordering: .releasing)
                _ = waitUntil(timeout: .seconds(60)) { release.isSet }
            }
        }
        defer { release.value.store(true, ordering: .releasing) }
        #expect(await waitUntil(timeout: .seconds(60)) { holding.isSet })
        #expect(throws: FileStorageError.lockTimeout(url, seconds: 0.2)) {
            try FileLock.withExclusiveLock(for: url, timeout: .milliseconds(200)) { Issue.record("entered a held lock") }
        }
        release.value.store(true, ordering: .releasing)
        #expect(await waitUntil(timeout: .seconds(60)) { holder.isSet })
        // Once released it can be taken again.
        #expect(try FileLock.withExclusiveLock(for: url, timeout: .seconds(10)) { true })
    }

    @Test func notReentrant() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("nested.plist")
        let entered = try FileLock.withExclusiveLock(for: url, timeout: .seconds(10)) { () throws -> Bool in
            #expect(throws: FileStorageError.lockTimeout(url, seconds: 0.1)) {
                try FileLock.withExclusiveLock(for: url, timeout: .milliseconds(100)) { Issue.record("re-entered") }
            }
            return true
        }
        #expect(entered)
        // The failed nested attempt did not release or corrupt the outer hold's bookkeeping.
        #expect(try FileLock.withExclusiveLock(for: url, timeout: .seconds(10)) { true })
    }

    @Test func asyncReentryTimesOutToo() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("nested.plist")
        let nestedError: (any Error)? = try await FileLock.withExclusiveLock(for: url, timeout: .seconds(10)) {
            do {
                // An explicitly async body: a synchronous one would select the blocking overload.
                try await FileLock.withExclusiveLock(for: url, timeout: .milliseconds(100)) { () async in _ = Issue.record("re-entered") }
                return nil
            } catch {
                return error
            }
        }
        #expect(nestedError as? FileStorageError == .lockTimeout(url, seconds: 0.1))
    }

    /// Many more waiting tasks than the pool's threads: all finish, and waiting never holds a pool thread.
    @Test func manyContendingTasksAllComplete() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("crowded.plist")
        let tasks = 64, rounds = 10
        let counter = HolderCounter()
        // A plain thread holds the lock until an unrelated task has made progress on the pool; if the
        // waiting tasks blocked the pool's threads, that progress could not happen and this would time out.
        let progress = Tally()
        let holding = Flag()
        let sawProgress = Flag()
        let holder = onThread {
            try? FileLock.withExclusiveLock(for: url) {
                holding.value.store(true, ordering: .releasing)
                // Generous: tests running in parallel may hold the 2 pool threads in blocking waits for a while.
                // Generous: the whole suite shares this process's pool, and other tests may hold its threads.
                let ok = waitUntil(timeout: .seconds(600)) { progress.count >= 20 }
                sawProgress.value.store(ok, ordering: .releasing)
            }
        }
        #expect(await waitUntil(timeout: .seconds(10)) { holding.isSet })
        let started = ContinuousClock.now
        let outcome: Bool = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<rounds {
                        try await FileLock.withExclusiveLock(for: url, timeout: .seconds(600)) {
                            counter.enter()
                            try await Task.sleep(for: .microseconds(200))
                            counter.leave()
                        }
                    }
                    return true
                }
            }
            group.addTask {
                for _ in 0..<20 {
                    progress.add()
                    try await Task.sleep(for: .milliseconds(1))
                }
                return true
            }
            // The deadline: if the contenders have not all finished by then, cancel them (their waits
            // end with CancellationError) and fail, rather than hang the test run.
            group.addTask {
                try? await Task.sleep(for: .seconds(900))
                return false
            }
            var finished = 0
            while let ok = try await group.next() {
                if !ok { group.cancelAll(); return false }
                finished += 1
                if finished == tasks + 1 { group.cancelAll(); return true }
            }
            return false
        }
        let elapsed = ContinuousClock.now - started
        print("FileLockTests: \(tasks) tasks × \(rounds) rounds on \(ProcessInfo.processInfo.activeProcessorCount) cores took \(elapsed)")
        #expect(outcome, "the contending tasks did not all finish before the deadline")
        #expect(await waitUntil(timeout: .seconds(30)) { holder.isSet })
        #expect(sawProgress.isSet, "no task made progress while the lock's waiters were waiting")
        #expect(counter.entries.load(ordering: .relaxed) == tasks * rounds)
        #expect(counter.most.load(ordering: .relaxed) == 1)
    }

    /// A lock held by a separate open file description (as another process's would be) blocks acquisition.
    @Test func flockFromAnotherDescriptionBlocksUntilReleased() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("foreign.plist")
        let lockPath = FileLock.lockURL(for: url).path
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        var fdOpen = true
        defer { if fdOpen { close(fd) } }
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)

        #expect(throws: FileStorageError.lockTimeout(url, seconds: 0.2)) {
            try FileLock.withExclusiveLock(for: url, timeout: .milliseconds(200)) { Issue.record("entered a foreign-held lock") }
        }
        let released = Flag()
        let enteredBeforeRelease = Flag()
        let waiting = Flag()
        let acquirer = onThread {
            waiting.value.store(true, ordering: .releasing)
            try? FileLock.withExclusiveLock(for: url, timeout: .seconds(600)) {
                if !released.isSet { enteredBeforeRelease.value.store(true, ordering: .releasing) }
            }
        }
        #expect(await waitUntil(timeout: .seconds(60)) { waiting.isSet })
        // Give the acquirer a real chance to get in wrongly: it polls every few ms.
        #expect(await !waitUntil(timeout: .milliseconds(300)) { acquirer.isSet })
        released.value.store(true, ordering: .releasing)
        #expect(flock(fd, LOCK_UN) == 0)
        close(fd)
        fdOpen = false
        #expect(await waitUntil(timeout: .seconds(60)) { acquirer.isSet })
        #expect(!enteredBeforeRelease.isSet)
    }

    /// A waiter polls the lock by opening its file again and again: those opens must not look like
    /// writes to anyone watching the folder (each used to raise IN_CLOSE_WRITE, and 40 waiting processes
    /// overflowed the inotify queue of a process watching the folder).
    @Test func waitingForTheLockRaisesNoWriteEvents() async throws {
        let temp = try TemporaryFolder()
        let url = temp.file("watched.plist")
        try FileLock.withExclusiveLock(for: url, timeout: .seconds(10)) {}   // the lock file exists from here on
        let lockFile = FileChangeMonitor(url: FileLock.lockURL(for: url))
        try #require(lockFile.usesInotify)
        let before = lockFile.changeToken
        let holding = Flag(), release = Flag()
        let holder = onThread {
            try? FileLock.withExclusiveLock(for: url, timeout: .seconds(60)) {
                holding.value.store(true, ordering: .releasing)
                _ = waitUntil(timeout: .seconds(600)) { release.isSet }
            }
        }
        defer { release.value.store(true, ordering: .releasing) }
        #expect(await waitUntil(timeout: .seconds(60)) { holding.isSet })
        // About 20 failed attempts in 200 ms (pauses of 0.5 ms doubling to 20 ms).
        #expect(throws: FileStorageError.lockTimeout(url, seconds: 0.2)) {
            try FileLock.withExclusiveLock(for: url, timeout: .milliseconds(200)) {}
        }
        release.value.store(true, ordering: .releasing)
        #expect(await waitUntil(timeout: .seconds(60)) { holder.isSet })
        // A later write in the same folder, seen by a monitor of its own, proves every earlier event
        // was read (one queue, read in order) before the check.
        let control = FileChangeMonitor(url: temp.file("control.plist"))
        let controlBefore = control.changeToken
        try DurableFile.write(Data("x".utf8), to: temp.file("control.plist"))
        #expect(await waitUntil(timeout: .seconds(60)) { control.changeToken != controlBefore })
        #expect(lockFile.changeToken == before,
                "waiting for the lock counted as \(lockFile.changeToken &- before) change(s) of its file")
    }

    @Test func bodyErrorsPassThroughAndReleaseTheLock() throws {
        struct Boom: Error, Equatable {}
        let temp = try TemporaryFolder()
        let url = temp.file("throws.plist")
        #expect(throws: Boom()) { try FileLock.withExclusiveLock(for: url) { throw Boom() } }
        #expect(try FileLock.withExclusiveLock(for: url, timeout: .seconds(5)) { true })
    }

    @Test func missingFolderIsATypedError() throws {
        let temp = try TemporaryFolder()
        let url = temp.folder("absent").appendingPathComponent("x.plist")
        // The error names the data file the caller asked about, not the lock's sidecar.
        #expect(throws: FileStorageError.notFound(url)) {
            try FileLock.withExclusiveLock(for: url, timeout: .seconds(1)) { Issue.record("locked in a missing folder") }
        }
    }
}
