import Foundation
#if canImport(Glibc)
import Glibc

// `DurableFile` has `read` and `write` members, so inside it the C functions need their module's name.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(fd, buffer, count) }
#elseif canImport(Darwin)
import Darwin

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(fd, buffer, count) }
#endif

/// Durable, atomic whole-file writes and plain reads, with errors that name the file and the cause.
///
/// A write goes to a temporary file in the same folder, is flushed with `fsync`, renamed over the
/// target, and then the folder itself is flushed, so after a crash or power loss the file holds
/// either the old version or the new one, never a mix, and the rename itself survives.
/// `Data.write(options: .atomic)` skips the folder flush and resets the mode to 0644; this keeps
/// an existing file's mode and gives a new one 0600.
///
/// A writer holds a `flock` on its temporary file until the rename. Each successful write then
/// removes the temporary files in its folder that nobody holds: those of writers killed mid-write
/// (`TemporaryFiles`). No process ids are compared, so PID namespaces and reused ids cannot fool it.
/// (In a folder of more than 256 entries each process looks at most once a second.)
///
/// A target that is a symbolic link is written through only when the link points to a file in the
/// same folder (the rename happens there, so the guarantee holds); any other link is refused with
/// `FileStorageError.symlinkOutsideFolder`.
///
/// ```swift
/// try DurableFile.write(Data("v2".utf8), to: url)     // the old bytes or the new, after any crash
/// let bytes = try DurableFile.readIfPresent(url)      // nil when there is no file
/// try DurableFile.remove(url)
/// ```
///
/// `DurableFile` takes no lock: two writers each leave a whole file, and the last rename wins. Wrap a
/// read-modify-write in ``FileLock/withExclusiveLock(for:timeout:_:)``, as `PlistFileStorage` does.
public enum DurableFile {
    /// Atomically and durably replaces the contents of `url` with `data`.
    ///
    /// - Throws: `FileStorageError`: `.diskFull` (the previous version is intact), `.permissionDenied`,
    ///   `.symlinkOutsideFolder`, `.notFound` when the folder is missing, `.io` otherwise.
    public static func write(_ data: Data, to url: URL) throws(FileStorageError) {
        try write(data, to: url, announcingTo: nil)
    }

    /// `write(_:to:)`, telling the inotify hub beforehand that the rename is `counter`'s own, so its
    /// event moves the counter's token without counting as another writer's change (a document then
    /// knows its cached bytes are still the file's without reading them again).
    static func write(_ data: Data, to url: URL, announcingTo counter: ChangeCounter?) throws(FileStorageError) {
        let target = try resolveTarget(url)
        // Paths as strings, once: every `URL` operation parses and copies on Linux.
        let targetPath = target.path
        let folderPath = parentPath(of: targetPath)
        var existing = stat()
        let mode: mode_t = stat(targetPath, &existing) == 0 ? existing.st_mode & 0o7777 : 0o600
        let (fd, lockFD, tempName) = try createLockedTemporaryFile(named: target.lastPathComponent, in: folderPath, url: url)
        let tempPath = folderPath + "/" + tempName
        var committed = false
        var writing = true
        defer {
            if writing { close(fd) }
            // Garbage, not a promise: no fsync of the folder. A power cut that undoes this unlink
            // brings back a temporary file nobody holds, which the next write in the folder removes.
            if !committed { unlink(tempPath) }
            // Closing releases the lock: only after the rename (or the unlink), so no cleaner can take
            // a temporary file that is still in use.
            close(lockFD)
        }
        guard fchmod(fd, mode) == 0 else { throw FileStorageError.from(errno: errno, operation: "fchmod", url: url) }
        try writeAll(fd, data, url: url)
        guard fsyncRetrying(fd) == 0 else { throw FileStorageError.from(errno: errno, operation: "fsync", url: url) }
        // The descriptor written through closes before the rename, so its close-after-write event
        // names the temporary file, not the target: watchers of the target see one change, the rename.
        close(fd)
        writing = false
        let hub = counter == nil ? nil : InotifyHub.shared
        if let counter { hub?.expectOwnRename(named: tempName, by: counter) }
        guard rename(tempPath, targetPath) == 0 else {
            let code = errno
            hub?.forgetOwnRename(named: tempName)
            throw FileStorageError.from(errno: code, operation: "rename", url: url)
        }
        committed = true
        try syncFolder(atPath: folderPath, url: url)
        TemporaryFiles.removeAbandonedAfterWrite(inFolderAtPath: folderPath)
    }

    /// The folder part of a standardized absolute path (`/` for a file at the root).
    static func parentPath(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Creates `.<name>.tmp-<pid>-<random>` beside `target` and takes its `flock`, which the writer
    /// holds until its rename: a temporary file nobody holds belongs to a writer that died.
    ///
    /// - Returns: A descriptor to write through, a read-only one holding the lock (closing it raises
    ///   no close-after-write event), and the temporary file's name.
    private static func createLockedTemporaryFile(named fileName: String, in folderPath: String,
                                                  url: URL) throws(FileStorageError) -> (Int32, Int32, String) {
        let prefix = TemporaryFiles.prefix(for: fileName)
        for _ in 0..<8 {
            let name = "\(prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let tempPath = folderPath + "/" + name
            let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileStorageError.from(errno: errno, operation: "create temporary file", url: url) }
            let lockFD = open(tempPath, O_RDONLY | O_CLOEXEC)
            guard lockFD >= 0 else {
                let code = errno
                close(fd)
                // ENOENT: a cleaner took the file before this writer could lock it; start again.
                if code == ENOENT { continue }
                unlink(tempPath)   // garbage: no fsync (see the `defer` of `write`)
                throw FileStorageError.from(errno: code, operation: "open temporary file", url: url)
            }
            // A cleaner in another process may have opened the name in the moment before this lock; it
            // holds the file only to check and unlink it, so wait briefly, then make sure the name
            // still leads to this file (a cleaner that won unlinked it: start again with a new name).
            var locked = false
            for attempt in 0..<2_000 {
                if flock(lockFD, LOCK_EX | LOCK_NB) == 0 { locked = true; break }
                guard errno == EWOULDBLOCK || errno == EINTR else { break }
                usleep(attempt < 100 ? 50 : 1_000)
            }
            if locked && TemporaryFiles.isLinked(lockFD, at: tempPath) { return (fd, lockFD, name) }
            let code = errno
            close(fd)
            close(lockFD)
            if !locked && code != EWOULDBLOCK && code != EINTR {
                unlink(tempPath)   // garbage: no fsync (see the `defer` of `write`)
                throw FileStorageError.from(errno: code, operation: "flock temporary file", url: url)
            }
        }
        throw FileStorageError.io(url, operation: "create temporary file (taken by cleaners 8 times)", errno: EAGAIN)
    }

    /// Reads the whole file.
    ///
    /// - Throws: `.notFound`, `.permissionDenied` or `.io`.
    public static func read(_ url: URL) throws(FileStorageError) -> Data {
        try read(atPath: url.path, url: url)
    }

    /// `read(_:)` of the file at `path` (`url` names it in errors).
    static func read(atPath path: String, url: URL) throws(FileStorageError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileStorageError.from(errno: errno, operation: "open", url: url) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileStorageError.from(errno: errno, operation: "fstat", url: url) }
        // Straight into the result, sized by fstat (one byte more, so a file that did not grow is read
        // in one call and its end found by the next); a file that grows meanwhile is read to its end.
        var result = Data(count: max(Int(info.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == result.count { result.count += max(result.count, 64 * 1024) }
            let n = result.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileStorageError.from(errno: errno, operation: "read", url: url)
            }
            if n == 0 { break }
            filled += n
        }
        result.count = filled
        return result
    }

    /// Reads the file, or returns `nil` if it does not exist.
    ///
    /// - Throws: `FileStorageError`: `.permissionDenied`, or `.io` for another `open` or `read` failure
    ///   (a folder at `url`, say); never `.notFound`.
    public static func readIfPresent(_ url: URL) throws(FileStorageError) -> Data? {
        try readIfPresent(atPath: url.path, url: url)
    }

    /// `readIfPresent(_:)` of the file at `path` (`url` names it in errors).
    static func readIfPresent(atPath path: String, url: URL) throws(FileStorageError) -> Data? {
        do {
            return try read(atPath: path, url: url)
        } catch .notFound {
            return nil
        }
    }

    /// Whether there is a directory entry at `path` (a symbolic link counts, even a dangling one): what
    /// a remove would unlink. Asked before taking a lock, so removing a missing file writes nothing.
    static func entryExists(atPath path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Removes the file durably; a missing file is not an error.
    ///
    /// The folder is flushed after the `unlink`, so the removal survives a power cut.
    ///
    /// - Throws: `FileStorageError`: `.permissionDenied` (a read-only folder), or `.io` for another
    ///   `unlink` or `fsync` failure.
    public static func remove(_ url: URL) throws(FileStorageError) {
        if unlink(url.path) != 0 && errno != ENOENT {
            throw FileStorageError.from(errno: errno, operation: "unlink", url: url)
        }
        try syncFolder(url.deletingLastPathComponent(), url: url)
    }

    /// The file a write to `url` lands in: `url` itself, or the target of a symlink inside the same folder.
    static func resolveTarget(_ url: URL) throws(FileStorageError) -> URL {
        var current = url.standardizedFileURL
        let folder = current.deletingLastPathComponent().path
        for _ in 0..<8 {
            var info = stat()
            guard lstat(current.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current.path, &buffer, buffer.count - 1)
            guard n >= 0 else { throw FileStorageError.from(errno: errno, operation: "readlink", url: url) }
            let destination = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let resolved = destination.hasPrefix("/")
                ? URL(fileURLWithPath: destination).standardizedFileURL
                : URL(fileURLWithPath: folder).appendingPathComponent(destination).standardizedFileURL
            guard resolved.deletingLastPathComponent().path == folder else {
                throw FileStorageError.symlinkOutsideFolder(url, destination: destination)
            }
            current = resolved
        }
        throw FileStorageError.io(url, operation: "resolve symbolic links", errno: ELOOP)
    }

    private static func writeAll(_ fd: Int32, _ data: Data, url: URL) throws(FileStorageError) {
        let failure: Int32? = data.withUnsafeBytes { raw -> Int32? in
            guard var p = raw.baseAddress else { return nil }
            var left = raw.count
            while left > 0 {
                let n = systemWrite(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                p += n
                left -= n
            }
            return nil
        }
        if let failure { throw FileStorageError.from(errno: failure, operation: "write", url: url) }
    }

    private static func fsyncRetrying(_ fd: Int32) -> Int32 {
        while true {
            let r = fsync(fd)
            if r == 0 || errno != EINTR { return r }
        }
    }

    /// Flushes a folder's entries, so a rename or unlink in it survives a crash.
    ///
    /// - Parameters:
    ///   - folder: The folder to flush.
    ///   - url: The file the rename or unlink was about, named in the error.
    /// - Throws: `FileStorageError` when the folder cannot be opened or flushed.
    public static func syncFolder(_ folder: URL, url: URL) throws(FileStorageError) {
        try syncFolder(atPath: folder.path, url: url)
    }

    static func syncFolder(atPath folderPath: String, url: URL) throws(FileStorageError) {
        let fd = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileStorageError.from(errno: errno, operation: "open folder", url: url) }
        defer { close(fd) }
        // Some file systems refuse fsync on a directory (EINVAL); the rename is still atomic there.
        if fsyncRetrying(fd) != 0 && errno != EINVAL {
            throw FileStorageError.from(errno: errno, operation: "fsync folder", url: url)
        }
    }
}
