import Foundation
import FileStorageKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared `flock` on a store's sidecar `.<name>.sqlite.lock`, held by every open store for its
/// lifetime, so that moving a damaged store aside (which takes it exclusively) never pulls the file
/// from under another process that has it open. Both SQLite stores use it (see ``StoreRecovery``).
package final class StoreLock: Sendable {
    /// Another process kept the lock exclusive (it was recovering the store) past the timeout.
    package struct Busy: Error, CustomStringConvertible {
        package let timeout: Duration
        package var description: String {
            "another process is recovering the store and kept it locked for more than \(timeout)"
        }
    }

    private let fd: Int32

    /// Opens the sidecar and takes the shared lock; `nil` when the folder is read-only and the
    /// sidecar cannot be created (opening the store will then report why).
    package init?(for store: URL, timeout: Duration) throws(Busy) {
        let path = FileLock.lockURL(for: store).path
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { fd = open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        self.fd = fd
        guard Self.poll(fd, LOCK_SH, timeout: timeout) else {
            close(fd)
            throw Busy(timeout: timeout)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Runs `body` with the lock held exclusively (no other store has the file open), then goes back
    /// to shared. `nil` when other processes kept it shared until the deadline, or when
    /// `stopWaiting` (asked about four times a second while waiting) says the wait is pointless.
    package func withExclusive<R>(timeout: Duration, stopWaiting: (() -> Bool)? = nil,
                                  _ body: () throws -> R) rethrows -> R? {
        guard Self.poll(fd, LOCK_EX, timeout: timeout, stopWaiting: stopWaiting) else {
            _ = Self.poll(fd, LOCK_SH, timeout: .seconds(1))
            return nil
        }
        defer { flock(fd, LOCK_SH) }
        return try body()
    }

    private static func poll(_ fd: Int32, _ operation: Int32, timeout: Duration, stopWaiting: (() -> Bool)? = nil) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var nextQuestion = ContinuousClock.now + .milliseconds(250)
        var pause: UInt32 = 1_000
        while flock(fd, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else { return false }
            if let stopWaiting, ContinuousClock.now >= nextQuestion {
                if stopWaiting() { return false }
                nextQuestion = ContinuousClock.now + .milliseconds(250)
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return true
    }
}
