import Foundation
import PlistCodec
import Synchronization
import Testing
import TestSupport
@testable import FileStorageKit

/// A suite's own writes stay what it serves while other threads refresh it: a refresh racing a
/// write (the change thread's, after the write's own rename event, or any reader's) must not leave
/// the suite serving the value from before the write as current.
@Suite(.enabled(if: InotifyHub.shared != nil, "needs inotify"))
struct DefaultsSuiteOwnWriteTests {
    /// Reader threads that refresh `suite` until stopped.
    private final class Readers: Sendable {
        let stop = Atomic<Bool>(false)
        let stale = Mutex<[String]>([])
        let finished = Atomic<Bool>(false)
    }

    /// Before `PlistDocument` stopped vouching for its cache during its own writes, 3 runs of 3 had a
    /// write the suite never served (it kept the previous value, with the token of the write's own
    /// event, until the next write): a refresh read the document between the write's rename and its
    /// cache update, and stored what it read after the write had stored the new values.
    @Test func eachSetIsServedWhileReadersRefresh() async throws {
        let folder = try TemporaryFolder(prefix: "suite-own-write")
        let suite = DefaultsSuite(suiteName: "race", folder: folder.url, lockTimeout: .seconds(120))
        // A listener, so the change thread refreshes the suite on every event too.
        let subscription = suite.observe { _ in }
        defer { subscription.cancel() }
        let readers = Readers()
        defer { readers.stop.store(true, ordering: .relaxed) }
        // More threads than cores: a refresh is often preempted between its read and its store.
        for _ in 0..<4 {
            Thread {
                while !readers.stop.load(ordering: .relaxed) { _ = suite.object(forKey: "n") }
            }.start()
        }
        let writes = 150
        Thread {
            for value in 1...writes {
                do {
                    try suite.set(.int(value), forKey: "n")
                } catch {
                    readers.stale.withLock { $0.append("set \(value): \(error)") }
                    break
                }
                // A stale value that lasts means the suite took it for current: it would stay so.
                if !waitUntil(timeout: .seconds(10), interval: .microseconds(500), { suite.object(forKey: "n")?.intValue == value }) {
                    readers.stale.withLock { $0.append("after set \(value) the suite served \(String(describing: suite.object(forKey: "n")))") }
                }
            }
            readers.finished.store(true, ordering: .releasing)
        }.start()
        #expect(await waitUntil(timeout: .seconds(600)) { readers.finished.load(ordering: .acquiring) })
        let stale = readers.stale.withLock { $0 }
        #expect(stale.isEmpty, "\(stale)")
    }
}
