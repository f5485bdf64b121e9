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
