import Foundation
import GRDB
import Testing
import TestSupport

/// Each fault of both SQLite stores as the store's typed error case (issue 48): one classification
/// (SQLiteSupport's `SQLiteFailure`) and one open, move-aside and reopen path, so one fault is one case
/// in both. The faults `SQLiteStoreFaultTests` already drives (a full disk, a busy timeout, a read-only
/// folder, a damaged store another instance has open) assert their case there; these are the rest: no
/// busy timeout at all, a read-only store file, a folder that cannot be made, and a damaged file that
/// cannot be moved aside. A fault that needs another user (root ignores permissions) runs in the
/// store's probe, which prints the case of the store's error (`error: <case> ...`).
@Suite struct SQLiteStoreTypedFaultTests {
    static let stores = SQLiteStoreFaultTests.stores

    /// With a busy timeout of zero SQLite does not wait at all, and the refusal is still the busy case.
    /// (ManagedStorage reported it as `sqlite(code: 5, ...)` where it knew no timeout.)
    @Test(arguments: stores)
    func aWriteLockHeldElsewhereWithNoBusyTimeoutIsABusyTimeoutOfZeroSeconds(_ store: any SQLiteStoreUnderTest) async throws {
        let folder = try TemporaryFolder(prefix: "sqlite-busy-zero")
        let open = try SQLiteStoreFaultTests.open(store, folder.url, busyTimeout: .zero)
        try open.write(id: 1, bytes: 10)
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: folder.file("Store.sqlite").path, configuration: config)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        var failure: (any Error)?
        do { try open.write(id: 2, bytes: 10) } catch { failure = error }
        try await other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        #expect(failure.flatMap(store.fault) == .busyTimeout(file: folder.file("Store.sqlite").path, seconds: 0),
                "\(store): \(String(describing: failure))")
        try open.write(id: 3, bytes: 10)
        #expect(try open.count() == 2, "the refused write left nothing; the next one worked")
    }

    /// A store folder that cannot be made (a file is where its parent should be: root cannot make it
    /// either) is "cannot open", naming the store file.
    @Test(arguments: stores)
    func aStoreFolderThatCannotBeMadeIsCannotOpen(_ store: any SQLiteStoreUnderTest) throws {
        let temp = try TemporaryFolder(prefix: "sqlite-no-folder")
        try Data("not a folder".utf8).write(to: temp.file("blocker"))
        let folder = temp.file("blocker").appendingPathComponent("store")
        var failure: (any Error)?
        do { _ = try SQLiteStoreFaultTests.open(store, folder) } catch { failure = error }
        #expect(failure.flatMap(store.fault) == .cannotOpen(file: folder.appendingPathComponent("Store.sqlite").path),
                "\(store): \(String(describing: failure))")
    }

    /// A missing store folder that this user may not make (its parent is read-only) is "cannot open".
    @Test(.enabled(if: ProcessFaults.canRunUnprivileged, "needs root and setpriv or runuser"), arguments: stores)
    func aMissingFolderThatCannotBeMadeIsCannotOpen(_ store: any SQLiteStoreUnderTest) async throws {
        let temp = try TemporaryFolder(prefix: "sqlite-missing-folder")
        let parent = temp.folder("locked")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try ProcessFaults.makeReadOnly(parent, files: [], in: temp)
        let folder = parent.appendingPathComponent("sub/store")
        let child = try await ProcessFaults(program: store.probe).runUnprivileged(store.probeOpen(folder))
        #expect(child.termination == .exited(1), "\(child.standardError)")
        #expect(ProbeFailure.caseName(child) == StoreFault.cannotOpen(file: "").caseName, "\(store): \(child.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// A read-only store file in a writable folder: opening it (a write of its own in DocumentStore, or
    /// ManagedStorage's once it has no log to read beside it) and a write are the read-only case,
    /// never "cannot open". (ManagedStorage reported it at open as `cannotOpen`.)
    @Test(.enabled(if: ProcessFaults.canRunUnprivileged, "needs root and setpriv or runuser"), arguments: stores)
    func aReadOnlyStoreFileIsReadOnlyAtOpenAndAtAWrite(_ store: any SQLiteStoreUnderTest) async throws {
        let temp = try TemporaryFolder(prefix: "sqlite-readonly-file")
        let folder = temp.folder("store")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let open = try SQLiteStoreFaultTests.open(store, folder)
            for id in 1...10 { try open.write(id: id, bytes: 10) }
        }
        let file = folder.appendingPathComponent("Store.sqlite")
        // Everything in the file and the log gone (the last connection removes `-wal` and `-shm`).
        let queue = try DatabaseQueue(path: file.path)
        try await queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try queue.close()
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        try ProcessFaults.makeReadOnly(folder, files: files, in: temp)
        #expect(chmod(folder.path, 0o777) == 0, "the folder stays writable: only the file is read-only")
        let faults = try ProcessFaults(program: store.probe)
        for arguments in [store.probeOpen(folder), store.probeWrite(folder, id: 77, bytes: 10)] {
            let child = try await faults.runUnprivileged(arguments)
            #expect(child.termination == .exited(1), "\(arguments): \(child.standardError)")
            #expect(ProbeFailure.caseName(child) == StoreFault.readOnly(file: "").caseName, "\(store) \(arguments): \(child.standardError)")
            #expect(child.standardError.contains(file.path), "names the file: \(child.standardError)")
        }
        #expect(try SQLiteStoreFaultTests.open(store, folder).count() == 10)
    }

    /// A file that is not a database (`SQLITE_NOTADB`) in a read-only folder: nothing can be moved
    /// aside there, so opening is the corrupt-database case, and the file is left byte for byte.
    /// (ManagedStorage reported it as `sqlite(code: 26, ...)`.) A damaged store in WAL mode there is
    /// never read: SQLite cannot make its `-shm`, so that is the read-only case, the file untouched too.
    /// (Where the folder is writable, both are moved aside: `SQLiteStoreFaultTests`.)
    @Test(.enabled(if: ProcessFaults.canRunUnprivileged, "needs root and setpriv or runuser"), arguments: stores)
    func aFileThatIsNotADatabaseInAReadOnlyFolderIsCorruptDatabaseAndLeftUntouched(_ store: any SQLiteStoreUnderTest) async throws {
        let temp = try TemporaryFolder(prefix: "sqlite-damaged-readonly")
        let faults = try ProcessFaults(program: store.probe)

        let garbageFolder = temp.folder("garbage")
        try FileManager.default.createDirectory(at: garbageFolder, withIntermediateDirectories: true)
        let garbage = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: garbageFolder.appendingPathComponent("Store.sqlite"))

        let truncatedFolder = temp.folder("truncated")
        try FileManager.default.createDirectory(at: truncatedFolder, withIntermediateDirectories: true)
        do {
            let open = try SQLiteStoreFaultTests.open(store, truncatedFolder)
            for id in 1...300 { try open.write(id: id, bytes: 1000) }
        }
        let truncated = truncatedFolder.appendingPathComponent("Store.sqlite")
        let queue = try DatabaseQueue(path: truncated.path)
        try await queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try queue.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: truncated.path)[.size] as? Int)
        let handle = try FileHandle(forWritingTo: truncated)
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        // Only the store file: without its lock file (which a read-only folder cannot get) nothing is moved.
        for name in try FileManager.default.contentsOfDirectory(atPath: truncatedFolder.path) where name != "Store.sqlite" {
            try FileManager.default.removeItem(at: truncatedFolder.appendingPathComponent(name))
        }
        let damaged = try Data(contentsOf: truncated)

        let expected = [(garbageFolder, garbage, StoreFault.corruptDatabase(file: "")), (truncatedFolder, damaged, .readOnly(file: ""))]
        for (folder, bytes, fault) in expected {
            let file = folder.appendingPathComponent("Store.sqlite")
            try ProcessFaults.makeReadOnly(folder, files: [file], in: temp)
            let child = try await faults.runUnprivileged(store.probeOpen(folder))
            #expect(child.termination == .exited(1), "\(child.standardError)")
            #expect(ProbeFailure.caseName(child) == fault.caseName,
                    "\(store) \(folder.lastPathComponent): \(child.standardError)")
            #expect(child.standardError.contains(file.path), "names the file: \(child.standardError)")
            #expect(try Data(contentsOf: file) == bytes, "left byte for byte")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Store.sqlite"])
        }
    }
}

/// What a probe that failed printed: `error: <case> <description>` (`ProbeOutput.fail`).
enum ProbeFailure {
    /// The case of the store's error the probe failed with; `nil` when it printed none.
    static func caseName(_ child: ChildProcess) -> String? {
        let line = child.standardError.split(separator: "\n").first { $0.hasPrefix("error: ") }
        return line.flatMap { $0.dropFirst("error: ".count).split(separator: " ").first.map(String.init) }
    }
}
