import Foundation
import FileStorageKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a store's sidecar `.<name>.sqlite.migration.lock`, held while opening
/// restores an interrupted migration or migrates: two processes opening an old store at the same
/// moment migrate it one after the other (the second finds nothing left to do), and a copy taken
/// before migrating is only ever restored when the process that took it is gone (a live migrator
/// holds the lock; the kernel releases a dead one's).
package enum MigrationLock {
    /// Another process kept migrating past the timeout.
    package struct Busy: Error, CustomStringConvertible {
        package let timeout: Duration
        package var description: String {
            "another process kept migrating the store for more than \(timeout)"
        }
    }

    /// Runs `body` holding the lock. Without a sidecar (a read-only folder, where nothing can be
    /// migrated anyway), `body` runs without it.
    package static func withExclusive<R>(for store: URL, timeout: Duration, _ body: () throws -> R) throws -> R {
        let path = FileLock.lockURL(for: store.appendingPathExtension("migration")).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        let deadline = ContinuousClock.now + timeout
        var pause: UInt32 = 1_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else { throw Busy(timeout: timeout) }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
