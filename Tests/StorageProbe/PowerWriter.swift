import FileStorageKit
import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `power-writer API FOLDER START`: the writer of the power-cut tests (`PowerCuts` in TestSupport).
///
/// Writes `k<i % 4> = i` for i = START, START + 1, ... forever in FOLDER (on a lazyfs mount) through
/// API and prints `acked <key> <value>` only after the write returned, which is when the API says the
/// value is durable. Values only grow, so a checker can tell an acknowledged value (or a later one)
/// from an older one.
///
/// APIs: `durable` (`DurableFile.write`, one file per key), `storage` (`PlistFileStorage.update` of a
/// `[String: Int]` in `values.plist`), `defaults` (`DefaultsSuite.set` in the suite `power`, whose folder,
/// `FOLDER/Preferences/power`, the first write creates), and two deliberately broken writers that the
/// harness's self-test must catch, in raw POSIX calls beside `durable`'s layout: `no-folder-sync` (the
/// rename is never made durable) and `no-file-sync` (the data is never flushed before the rename).
/// `detach-first` writes as `durable` does, after detaching the mount (`umount2(MNT_DETACH)`, as root):
/// its writes land in the mount folder itself, past lazyfs, which the harness must notice.
enum PowerWriter {
    static let keyCount = 4

    static func run(api: String, folder: URL, start: Int) throws -> Never {
        let write: (String, Int) throws -> Void
        let durable = { (key: String, value: Int) throws in
            try DurableFile.write(Data("\(value)".utf8), to: folder.appendingPathComponent(key))
        }
        switch api {
        case "durable":
            write = durable
        case "storage":
            let storage = PlistFileStorage(lockTimeout: Probe.lockTimeout)
            let file = folder.appendingPathComponent("values.plist")
            write = { key, value in try storage.update(at: file, default: [String: Int]()) { $0[key] = value } }
        case "defaults":
            let suite = DefaultsSuite(suiteName: "power", folder: defaultsFolder(folder), lockTimeout: Probe.lockTimeout)
            write = { key, value in try suite.set(value, forKey: key) }
        case "no-folder-sync":
            write = { key, value in try rawWrite(value, key: key, in: folder.path, syncFile: true, syncFolder: false) }
        case "no-file-sync":
            write = { key, value in try rawWrite(value, key: key, in: folder.path, syncFile: false, syncFolder: true) }
        case "detach-first":
            guard umount2(folder.path, Int32(MNT_DETACH)) == 0 else { throw posixError("umount2 \(folder.path)") }
            write = durable
        default:
            usage("power-writer: unknown API \(api) (durable, storage, defaults, no-folder-sync, no-file-sync, detach-first)")
        }
        var value = start
        while true {
            let key = "k\(value % keyCount)"
            try write(key, value)
            ProbeOutput.say("acked \(key) \(value)")
            value += 1
        }
    }

    /// The folder of the `defaults` writer's suite: two levels that do not exist before its first write.
    static func defaultsFolder(_ folder: URL) -> URL {
        folder.appendingPathComponent("Preferences/power", isDirectory: true)
    }

    /// A temporary file, written, renamed over `key`: `DurableFile`'s steps, each flush optional.
    private static func rawWrite(_ value: Int, key: String, in folder: String, syncFile: Bool, syncFolder: Bool) throws {
        let temp = folder + "/." + key + ".tmp"
        let bytes = Array("\(value)".utf8)
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw posixError("open \(temp)") }
        guard pwrite(fd, bytes, bytes.count, 0) == bytes.count else { close(fd); throw posixError("write \(temp)") }
        if syncFile { guard fsync(fd) == 0 else { close(fd); throw posixError("fsync \(temp)") } }
        close(fd)
        guard rename(temp, folder + "/" + key) == 0 else { throw posixError("rename \(temp)") }
        if syncFolder {
            let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard dir >= 0 else { throw posixError("open \(folder)") }
            defer { close(dir) }
            guard fsync(dir) == 0 else { throw posixError("fsync \(folder)") }
        }
    }

    private static func posixError(_ what: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
    }
}
