import Foundation

/// A fresh, uniquely named folder under the system's temporary directory, removed when the value is released.
///
/// Each test makes its own, so tests running in parallel never share files, and nothing depends on
/// the working directory or on environment variables changed by a test.
///
/// ```swift
/// let temp = try TemporaryFolder()
/// let url = temp.url.appendingPathComponent("settings.plist")
/// ```
///
/// Keep the value alive for as long as the test uses the folder (a `let` in the test body does).
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder (it exists until this value is released).
    public let url: URL

    /// Creates an empty folder named `<prefix>-<UUID>` with mode 0700.
    ///
    /// - Parameters:
    ///   - prefix: Shows in the folder's name, to tell tests' leftovers apart.
    ///   - inMemory: Under `/dev/shm` (a RAM file system) when there is one, for tests that
    ///   need many durable writes in little time (an `fsync` there costs microseconds): races between
    ///   a write and the threads around it show in seconds instead of minutes.
    /// - Throws: The file-system error when the folder cannot be created.
    public init(prefix: String = "fsk-test", inMemory: Bool = false) throws {
        var isFolder: ObjCBool = false
        let base = inMemory && FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isFolder) && isFolder.boolValue
            && access("/dev/shm", W_OK) == 0
            ? URL(fileURLWithPath: "/dev/shm", isDirectory: true) : FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    deinit {
        // Folders a test made read-only would stop the removal; give them back their write bit first.
        if let walker = FileManager.default.enumerator(atPath: url.path) {
            for case let relative as String in walker {
                let path = url.appendingPathComponent(relative).path
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                    _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
                }
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// The URL of `name` inside the folder (not created).
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }

    /// The URL of the sub-folder `relativePath` (not created).
    public func folder(_ relativePath: String) -> URL {
        url.appendingPathComponent(relativePath, isDirectory: true)
    }

    /// The names of the entries in the folder (hidden ones included), sorted.
    public func entries(in relativePath: String = "") throws -> [String] {
        let folder = relativePath.isEmpty ? url : url.appendingPathComponent(relativePath, isDirectory: true)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }
}

/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it held.
/// The timeout is stretched by `DeadlineScale` (`TOOLKIT_DEADLINE_SCALE`) under the sanitizers.
///
/// For waiting on something another thread, task or process does: never a fixed sleep, and the
/// deadline bounds the wait when the thing never happens.
///
/// This one sleeps the calling thread: for plain threads. Tests (tasks on Swift's cooperative pool,
/// which has one thread per core) use the `async` overload, so a long wait never holds a pool thread
/// that the awaited work, or every other test in the process, needs.
@available(*, noasync, message: "blocks a thread of the cooperative pool: use `await waitUntil` in a task")
public func waitUntil(timeout: Duration = .seconds(5), interval: Duration = .milliseconds(2),
                      _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + DeadlineScale.scaled(timeout)
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
}

/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it held.
/// Waits with `Task.sleep`, so the pool thread is free between looks. The condition is checked once
/// more after the deadline, so a starved task does not report a timeout for something that happened.
public func waitUntil(timeout: Duration = .seconds(5), interval: Duration = .milliseconds(2),
                      _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + DeadlineScale.scaled(timeout)
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return try condition() }
        try? await Task.sleep(for: interval)
    }
}

/// The permission bits (`st_mode & 0o7777`) of the file or folder at `url`, or `nil` when it does not exist.
public func permissionBits(_ url: URL) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? nil
}
