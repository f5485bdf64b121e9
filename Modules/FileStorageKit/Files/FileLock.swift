import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a file, shared by every thread, task and process that uses FileStorageKit.
///
/// The lock is `flock` on a sidecar file `.<name>.lock` in the same folder, which is never renamed or
/// deleted (a lock on the data file itself would be lost the moment an atomic write renames a new
/// inode over it). Each acquisition opens the sidecar anew with `O_CLOEXEC`, so a child process never
/// inherits a held lock. An in-process table excludes threads and tasks of the same process as well.
///
/// Waiting is a non-blocking `flock(LOCK_NB)` poll with a growing pause, against a deadline: it never
/// blocks in `flock`. From async code use the `async` overload, which pauses with `Task.sleep` and so
/// never holds one of the cooperative pool's few threads while it waits.
///
/// The lock is **not re-entrant**: taking it again while holding it (on any thread of the process)
/// waits until the deadline and throws `.lockTimeout`. Keep the body short and never nest locks on
/// the same file.
///
/// ```swift
/// try FileLock.withExclusiveLock(for: url) {
///     var count = try read(url)
///     count += 1
///     try write(count, to: url)
/// }
/// ```
public enum FileLock {
    /// How long to wait for a lock by default.
    public static let defaultTimeout: Duration = .seconds(30)

    /// Paths locked by this process right now.
    private static let heldInProcess = Mutex<Set<String>>([])

    /// The sidecar lock file for `url`: `.<name>.lock` beside it.
    public static func lockURL(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock")
    }

    /// Runs `body` while holding the exclusive lock for `url`, waiting at most `timeout` for it.
    ///
    /// - Throws: `FileStorageError.lockTimeout` when the lock was not acquired in time, another
    ///   `FileStorageError` when the lock file cannot be created, or what `body` throws.
    public static func withExclusiveLock<R>(for url: URL, timeout: Duration = defaultTimeout,
                                            _ body: () throws -> R) throws -> R {
        try withExclusiveLock(for: Sidecar(url), timeout: timeout, body)
    }

    /// Runs `body` while holding the exclusive lock for `url`; waits with `Task.sleep`, never blocking a thread.
    ///
    /// ```swift
    /// try await FileLock.withExclusiveLock(for: url, timeout: .seconds(5)) {
    ///     try DurableFile.write(Data("next".utf8), to: url)
    /// }
    /// ```
    ///
    /// - Throws: `FileStorageError.lockTimeout` when the lock was not acquired in time, another
    ///   `FileStorageError` when the lock file cannot be created, or what `body` throws.
    public static func withExclusiveLock<R>(for url: URL, timeout: Duration = defaultTimeout,
                                            isolation: isolated (any Actor)? = #isolation,
                                            _ body: () async throws -> R) async throws -> R {
        try await withExclusiveLock(for: Sidecar(url), timeout: timeout, isolation: isolation, body)
    }

    /// Where the lock for a file lives, worked out once for a caller that takes it again and again
    /// (a document): `URL` operations parse and copy, so each acquisition then costs one `lstat` to
    /// see whether the file has become a symbolic link since.
    struct Sidecar: Sendable {
        let url: URL
        private let path: String
        /// The sidecar's path while `url` is not a symbolic link.
        private let plainLockPath: String

        init(_ url: URL) {
            self.url = url
            let standardized = url.standardizedFileURL
            path = standardized.path
            plainLockPath = FileLock.lockURL(for: standardized).standardizedFileURL.path
        }

        /// The sidecar's path now: the lock belongs to the file a write lands in (for a same-folder
        /// symlink, its target), so writers through the link and to the target exclude each other.
        var lockPath: String {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return plainLockPath }
            let target = (try? DurableFile.resolveTarget(url)) ?? url
            return lockURL(for: target).standardizedFileURL.path
        }
    }

    static func withExclusiveLock<R>(for sidecar: Sidecar, timeout: Duration, _ body: () throws -> R) throws -> R {
        let held = try acquire(sidecar, timeout: timeout) { pause in usleep(UInt32(pause.microseconds)) }
        defer { held.release() }
        return try body()
    }

    static func withExclusiveLock<R>(for sidecar: Sidecar, timeout: Duration, isolation: isolated (any Actor)?,
                                     _ body: () async throws -> R) async throws -> R {
        let url = sidecar.url
        let deadline = ContinuousClock.now + timeout
        var pause = Pause()
        var held: Held?
        while held == nil {
            held = try tryAcquire(sidecar)
            if held == nil {
                guard ContinuousClock.now < deadline else { throw timeoutError(url, timeout) }
                try await Task.sleep(for: .microseconds(pause.next()))
            }
        }
        defer { held?.release() }
        return try await body()
    }

    struct Held {
        let path: String
        let fd: Int32

        func release() {
            flock(fd, LOCK_UN)
            close(fd)
            _ = FileLock.heldInProcess.withLock { $0.remove(path) }
        }
    }

    struct Pause {
        private var current = 500
        /// The next pause in microseconds: 0.5 ms doubling to 20 ms, with jitter so waiters spread out.
        mutating func next() -> Int {
            defer { current = min(current * 2, 20_000) }
            return current / 2 + Int.random(in: 0...current / 2)
        }
    }

    private static func acquire(_ sidecar: Sidecar, timeout: Duration, sleep: (Duration) -> Void) throws -> Held {
        let deadline = ContinuousClock.now + timeout
        var pause = Pause()
        while true {
            if let held = try tryAcquire(sidecar) { return held }
            guard ContinuousClock.now < deadline else { throw timeoutError(sidecar.url, timeout) }
            sleep(.microseconds(pause.next()))
        }
    }

    /// One attempt: the in-process claim, then `flock(LOCK_EX | LOCK_NB)` on a fresh descriptor.
    private static func tryAcquire(_ sidecar: Sidecar) throws -> Held? {
        let url = sidecar.url
        let path = sidecar.lockPath
        guard heldInProcess.withLock({ $0.insert(path).inserted }) else { return nil }
        // Read-only: flock needs no write access, and closing a descriptor that was not opened for
        // writing raises no IN_CLOSE_WRITE, so waiters polling the lock do not flood the folder's
        // inotify watchers (a flood overflows the kernel's queue, and every file then counts as changed).
        let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            _ = heldInProcess.withLock { $0.remove(path) }
            throw FileStorageError.from(errno: code, operation: "open lock file \(path)", url: url)
        }
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return Held(path: path, fd: fd) }
            let code = errno
            if code == EINTR { continue }
            close(fd)
            _ = heldInProcess.withLock { $0.remove(path) }
            if code == EWOULDBLOCK { return nil }
            throw FileStorageError.from(errno: code, operation: "flock \(path)", url: url)
        }
    }

    static func timeoutError(_ url: URL, _ timeout: Duration) -> FileStorageError {
        .lockTimeout(url, seconds: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
    }
}

extension Duration {
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}
