import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DurableFile {
    /// Renames a damaged file (and its `companions`, suffixes such as SQLite's `-wal` and `-shm`, when
    /// present) to `<name>.<label>-<UTC timestamp>` in the same folder, `-2`, `-3`… on a clash, and
    /// flushes the folder (best effort) so the rename survives a crash. Returns the new URL of `url`.
    ///
    /// The stores call it instead of writing over a file they cannot read, so nothing is lost: the
    /// old bytes stay beside the fresh file for whoever wants to look.
    ///
    /// ```swift
    /// let movedTo = try DurableFile.moveAside(storeURL, companions: ["-wal", "-shm"])
    /// // store.sqlite.corrupt-20261127T193000.000Z, and its -wal and -shm beside it
    /// ```
    ///
    /// - Parameters:
    ///   - url: The damaged file.
    ///   - label: The word between the name and the timestamp.
    ///   - companions: Suffixes of files that belong with `url` and move with it, each when it exists.
    ///   - date: The time written into the name (now).
    /// - Returns: Where `url` is now.
    /// - Throws: `FileStorageError` when a rename fails (nothing after it is renamed): `.notFound` when
    ///   `url` does not exist, `.permissionDenied`, `.io`.
    @discardableResult
    public static func moveAside(_ url: URL, label: String = "corrupt", companions: [String] = [],
                                 at date: Date = Date()) throws(FileStorageError) -> URL {
        let folder = url.deletingLastPathComponent()
        let stamp = timestamp(date)
        let base = "\(url.lastPathComponent).\(label)-\(stamp)"
        var destination = folder.appendingPathComponent(base)
        var attempt = 1
        while ([""] + companions).contains(where: { FileManager.default.fileExists(atPath: destination.path + $0) }) {
            attempt += 1
            destination = folder.appendingPathComponent("\(base)-\(attempt)")
        }
        for suffix in [""] + companions where suffix.isEmpty || FileManager.default.fileExists(atPath: url.path + suffix) {
            guard rename(url.path + suffix, destination.path + suffix) == 0 else {
                throw .io(URL(fileURLWithPath: url.path + suffix), operation: "rename aside", errno: errno)
            }
        }
        // Best effort: the files are renamed already, and the caller goes on to make a fresh one,
        // whose own durable write flushes this folder again. Should both flushes fail, a power cut
        // undoes the rename: the damaged file is back at its name, the next open moves it aside
        // again, and nothing acknowledged is lost (the fresh file held nothing durable yet).
        try? syncFolder(folder, url: url)
        return destination
    }

    /// Finishes a ``moveAside(_:label:companions:at:)`` that a killed process left half done: when
    /// `url` is gone but some of its `companions` are still at their names, they belong to the file
    /// moved aside last (the newest `<name>.<label>-<timestamp>`), and follow it there when it lacks
    /// them; otherwise they go to `<name>.orphan-<timestamp><suffix>`. Nothing is deleted. The folder
    /// is flushed before it returns (and a failed flush throws), so a program that creates a fresh
    /// `url` next never finds the old companion back at its name after a power cut.
    ///
    /// SQLite deletes a `-wal` file it finds without its database, and the commits in it with it, so
    /// both SQLite stores call this, under their store lock, before they open a store that is gone.
    ///
    /// - Parameters:
    ///   - url: The file that was being moved aside.
    ///   - companions: The suffixes the move took along (`["-wal", "-shm"]`).
    ///   - date: The time written into an orphan's name (now).
    /// - Returns: Where each companion moved to (empty when there was nothing to finish).
    /// - Throws: `FileStorageError` when a rename or the folder's flush fails.
    package static func finishMoveAside(of url: URL, companions: [String], at date: Date = Date()) throws(FileStorageError) -> [URL] {
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: url.path) else { return [] }
        let left = companions.filter { fileManager.fileExists(atPath: url.path + $0) }
        guard !left.isEmpty else { return [] }
        let folder = url.deletingLastPathComponent()
        let newest = lastMovedAside(url)
        var moved: [URL] = []
        for suffix in left {
            var destination: String
            if let newest, !fileManager.fileExists(atPath: newest.path + suffix) {
                destination = newest.path + suffix
            } else {
                let base = folder.appendingPathComponent("\(url.lastPathComponent).orphan-\(timestamp(date))").path
                destination = base + suffix
                var attempt = 1
                while fileManager.fileExists(atPath: destination) {
                    attempt += 1
                    destination = "\(base)-\(attempt)\(suffix)"
                }
            }
            guard rename(url.path + suffix, destination) == 0 else {
                throw .io(URL(fileURLWithPath: url.path + suffix), operation: "rename aside", errno: errno)
            }
            moved.append(URL(fileURLWithPath: destination))
        }
        try syncFolder(folder, url: url)
        return moved
    }

    /// The newest `<name>.<label>-<timestamp>[-<n>]` beside `url` (by its timestamp, then `n`), or `nil`.
    static func lastMovedAside(_ url: URL) -> URL? {
        let folder = url.deletingLastPathComponent()
        let prefix = url.lastPathComponent + "."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        var best: (stamp: String, attempt: Int, name: String)?
        for name in names where name.hasPrefix(prefix) {
            // `<label>-<stamp>` or `<label>-<stamp>-<n>`; the stamp is 20 characters ending in Z.
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), rest[..<dash].allSatisfy(\.isLetter) else { continue }
            let tail = rest[rest.index(after: dash)...]
            guard tail.count >= 20 else { continue }
            let stamp = String(tail.prefix(20))
            guard stamp.hasSuffix("Z"), stamp.dropLast().allSatisfy({ $0.isNumber || $0 == "T" || $0 == "." }) else { continue }
            let after = tail.dropFirst(20)
            let attempt: Int
            if after.isEmpty {
                attempt = 1
            } else if after.first == "-", let n = Int(after.dropFirst()) {
                attempt = n
            } else {
                continue
            }
            if best.map({ ($0.stamp, $0.attempt) < (stamp, attempt) }) ?? true { best = (stamp, attempt, name) }
        }
        return best.map { folder.appendingPathComponent($0.name) }
    }

    /// `20250314T101502.123Z`: UTC, to the millisecond, and sortable.
    public static func timestamp(_ date: Date = Date()) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let millis = Int((interval - interval.rounded(.down)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }
}
