import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files `DurableFile.write` makes, and the removal of those whose writer died.
///
/// A writer creates `.<name>.tmp-<pid>-<random>` and holds `flock(LOCK_EX)` on it until its rename.
/// A file with exactly that shape that can be locked with `LOCK_NB` therefore has no live writer:
/// the process that made it was killed between creating and renaming it. Such files are never the
/// data (the rename is what publishes a version), so removing them loses nothing.
enum TemporaryFiles {
    /// The start of every temporary file's name for `fileName`.
    static func prefix(for fileName: String) -> String { ".\(fileName).tmp-" }

    /// Whether `name` has exactly the shape `DurableFile` gives its temporary files:
    /// `.<name>.tmp-<digits>-<digits>`, with a non-empty `<name>`.
    ///
    /// Anything looser would take other programs' files: an editor's `.notes.tmp-draft`, or a
    /// `.x.tmp-1-2b` of a tool that holds no lock while it writes.
    static func isTemporaryName(_ name: String) -> Bool {
        Array(name.utf8).withUnsafeBufferPointer { isTemporaryName($0) }
    }

    /// `isTemporaryName` on the raw bytes of a folder entry's name, so listing a folder builds no
    /// `String` for the entries that are not temporary files (nearly all of them).
    static func isTemporaryName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let dot = UInt8(ascii: "."), dash = UInt8(ascii: "-")
        guard name.first == dot else { return false }
        // From the end: <digits> '-' <digits> ".tmp-"
        var i = name.count
        func digits() -> Bool {
            let end = i
            while i > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[i - 1]) { i -= 1 }
            return i < end
        }
        guard digits(), i > 0, name[i - 1] == dash else { return false }
        i -= 1
        guard digits() else { return false }
        let marker = Array(".tmp-".utf8)
        guard i >= marker.count + 2 else { return false }   // the leading dot and at least one byte of <name>
        for (offset, byte) in marker.enumerated() where name[i - marker.count + offset] != byte { return false }
        return true
    }

    /// A folder with more entries than this is listed at most once per `largeFolderInterval` by
    /// each process. Listing costs about 0.3 µs an entry (ext4, debug build): 256 entries add
    /// about 7% to a 1 ms write, 10,000 entries three times its cost.
    static let largeFolderEntries = 256
    /// How often a process lists a large folder for abandoned temporary files.
    static let largeFolderInterval: Duration = .seconds(1)
    /// The large folders this process listed, and when.
    private static let largeFoldersListed = Mutex<[String: ContinuousClock.Instant]>([:])

    /// `removeAbandoned(inFolderAtPath:)` after a write: every time, except that a large folder this
    /// process listed less than `largeFolderInterval` ago is skipped.
    ///
    /// A killed writer's leftover harms nothing but space, so a second's delay in a large folder is
    /// a fair price for keeping writes there cheap.
    static func removeAbandonedAfterWrite(inFolderAtPath path: String) {
        let now = ContinuousClock.now
        let due = largeFoldersListed.withLock { listed in
            listed[path].map { now - $0 >= largeFolderInterval } ?? true
        }
        guard due else { return }
        let entries = removeAbandoned(inFolderAtPath: path).entries
        largeFoldersListed.withLock { listed in
            listed[path] = entries > largeFolderEntries ? now : nil
        }
    }

    /// Removes every temporary file in the folder at `folderPath` that no writer holds. Best effort: a file it cannot
    /// open or lock, or a folder it cannot list, is left as it is, and nothing is reported (the write
    /// that called it has already succeeded).
    ///
    /// Cost: one pass over the folder's entries (`getdents`, many entries per system call); each
    /// entry costs a byte comparison, and only a temporary file's name is opened.
    ///
    /// - Returns: The names removed, and how many entries the folder has.
    @discardableResult
    static func removeAbandoned(inFolderAtPath folderPath: String) -> (removed: [String], entries: Int) {
        guard let dir = opendir(folderPath) else { return ([], 0) }
        var candidates: [String] = []
        var entries = 0
        while let entry = readdir(dir) {
            entries += 1
            // Read the name in place: nearly every entry is rejected at its first byte, without a copy
            // of the record or a `String`.
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            guard name.pointee == UInt8(ascii: ".") else { continue }
            let bytes = UnsafeBufferPointer(start: name, count: strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)))
            if isTemporaryName(bytes) { candidates.append(String(decoding: bytes, as: UTF8.self)) }
        }
        closedir(dir)
        var removed: [String] = []
        for name in candidates {
            let path = folderPath + "/" + name
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Held: a live writer. Not linked at this name any more: its writer renamed it into place
            // (and let go) between the listing and the lock; that file is now the data.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, isLinked(fd, at: path) else { continue }
            // No fsync of the folder: this is garbage, not a promise. A power cut that undoes the
            // unlink brings back a file nobody holds, never read, which the next write removes again.
            if unlink(path) == 0 { removed.append(name) }
        }
        return (removed, entries)
    }

    /// Where a `dirent`'s name starts.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    /// Whether `path` still names the open file `fd`.
    static func isLinked(_ fd: Int32, at path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(fd, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
