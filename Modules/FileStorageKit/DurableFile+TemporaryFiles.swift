import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files `DurableFile.write` makes, and the removal of those whose writer died.
///
/// A writer creates `.<name>.tmp-<pid>-<random>` and holds `flock(LOCK_EX)` on it until its rename.
/// A file with that shape that can be locked with `LOCK_NB` therefore has no live writer: the
/// process that made it was killed between creating and renaming it. Such files are never the data
/// (the rename is what publishes a version), so removing them loses nothing.
enum TemporaryFiles {
    /// The start of every temporary file's name for `fileName`.
    static func prefix(for fileName: String) -> String { ".\(fileName).tmp-" }

    /// Whether `name` has the shape of a temporary file of `DurableFile`.
    static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".tmp-")
    }

    /// Removes every temporary file in `folder` that no writer holds. Best effort: a file it cannot
    /// open or lock, or a folder it cannot list, is left as it is, and nothing is reported (the write
    /// that called it has already succeeded).
    ///
    /// - Returns: The names removed.
    @discardableResult
    static func removeAbandoned(in folder: URL) -> [String] {
        guard let dir = opendir(folder.path) else { return [] }
        var candidates: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if isTemporaryName(name) { candidates.append(name) }
        }
        closedir(dir)
        var removed: [String] = []
        for name in candidates {
            let path = folder.appendingPathComponent(name).path
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Held: a live writer. Not linked at this name any more: its writer renamed it into place
            // (and let go) between the listing and the lock; that file is now the data.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, isLinked(fd, at: path) else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }

    /// Whether `path` still names the open file `fd`.
    static func isLinked(_ fd: Int32, at path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(fd, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
