// Black-box tests of what ManagedStorage's articles promise about a process killed while it moves a store aside
// (ChangingTheModel.md, `.moveAsideAndStartEmpty`; CorruptStoresAndDurability.md, corrupt stores). The state such a
// kill leaves is built by hand: the files of a store copied while the manager that wrote them is still open (so its
// commits are in the `-wal` only), then the database renamed to `<name>.sqlite.incompatible-<time>` or
// `.corrupt-<time>` with one or both companions still at their old names. Each test quotes the sentence it checks.
import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The errors a manager reported to `onError`.
final class DocPromiseMoveErrors: Sendable {
    private let entries = Mutex<[StorageError]>([])
    func append(_ error: StorageError) { entries.withLock { $0.append(error) } }
    var all: [StorageError] { entries.withLock { $0 } }
}

/// Which companions the killed mover left at the old names.
enum DocPromiseMoveLeftBehind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Killed after the first rename: `-wal` and `-shm` both at the old names.
    case walAndShm
    /// Killed after the second rename: the `-wal` moved, the `-shm` at its old name.
    case shmOnly
    /// Killed after the third rename, before it could report: nothing at the old names.
    case nothing
    var description: String { rawValue }
}

enum DocPromiseMove {
    /// A UTC time as the moved copies' names spell it (`20261128T101500.000Z`).
    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter.string(from: date)
    }

    static func queue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// `sql`'s integer answer on the file at `path` (a connection of its own, closed after).
    static func int(_ path: String, _ sql: String) throws -> Int? {
        let queue = try queue(path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) }
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(info.st_ino)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func entries(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    static func copy(_ from: URL, _ to: URL) throws {
        try FileManager.default.copyItem(at: from, to: to)
    }

    static func configuration(_ folder: URL, log: DocPromiseMoveErrors) -> StorageConfiguration {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.busyTimeout = .seconds(5)
        configuration.onError = { log.append($0) }
        return configuration
    }

    /// A version-2 ledger (the "newer program") with `batches` commits of 10 entries each, its manager still open,
    /// copied into `target` as `Store.sqlite`, `-wal`, `-shm`. Returns the open manager (keep it alive until the
    /// copy is made) and the number of entries.
    static func liveV2Copy(into target: URL, batches: Int = 6) throws -> (SQLiteStorageManager, TemporaryFolder, Int) {
        let source = try TemporaryFolder(prefix: "docpromise-move-src")
        let log = DocPromiseMoveErrors()
        let manager = try SQLiteStorageManager(model: ledgerModelV2, configuration: configuration(source.url, log: log))
        for batch in 0..<batches {
            try manager.writeAndWait { storage in
                let account = storage.insertNewObject(ofType: AccountV2.self)
                account.name = "account \(batch)"
                for i in 0..<10 {
                    let code = Int64(batch * 10 + i)
                    let entry = storage.insertNewObject(ofType: EntryV2.self)
                    entry.code = code
                    entry.label = "entry \(code)"
                    entry.amount = Double(code)
                    entry.revision = 2
                    entry.account = account
                }
            }
        }
        let store = source.file("Store.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try copy(URL(fileURLWithPath: store.path + suffix), target.appendingPathComponent("Store.sqlite" + suffix))
        }
        return (manager, source, batches * 10)
    }

    /// A version-1 ledger with `entries` entries (one commit per 10), its manager open, copied into `target`.
    static func liveV1Copy(into target: URL, entries: Int = 50) throws -> (SQLiteStorageManager, TemporaryFolder, Int) {
        let source = try TemporaryFolder(prefix: "docpromise-move-src")
        let log = DocPromiseMoveErrors()
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: configuration(source.url, log: log))
        for start in stride(from: 0, to: entries, by: 10) {
            try manager.writeAndWait { storage in
                let account = storage.insertNewObject(ofType: AccountV1.self)
                account.name = "account \(start)"
                for i in start..<min(start + 10, entries) {
                    let entry = storage.insertNewObject(ofType: EntryV1.self)
                    entry.code = Int64(i)
                    entry.title = "entry \(i)"
                    entry.amount = Double(i)
                    entry.account = account
                }
            }
        }
        let store = source.file("Store.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try copy(URL(fileURLWithPath: store.path + suffix), target.appendingPathComponent("Store.sqlite" + suffix))
        }
        return (manager, source, entries)
    }

    /// Checks that the copied database file alone does not hold every entry: the commits are in the `-wal`.
    static func expectCommitsOnlyInTheLog(_ folder: URL, total: Int) throws {
        let scratch = try TemporaryFolder(prefix: "docpromise-move-check")
        try copy(folder.appendingPathComponent("Store.sqlite"), scratch.file("alone.sqlite"))
        let alone = (try? int(scratch.file("alone.sqlite").path, #"SELECT count(*) FROM "Entry""#)) ?? nil
        #expect(alone ?? 0 < total, "the database file alone holds \(String(describing: alone)) of \(total) entries: the test needs commits in the -wal")
    }

    /// Renames the database as a killed mover would have, leaving the companions `left` at their old names.
    /// Returns the moved path and the inodes of the `-wal` and `-shm`.
    static func killMidMove(_ folder: URL, kind: String, stamp: String, left: DocPromiseMoveLeftBehind) throws
        -> (moved: String, wal: UInt64, shm: UInt64) {
        let store = folder.appendingPathComponent("Store.sqlite").path
        let moved = store + ".\(kind)-\(stamp)"
        let wal = try #require(inode(store + "-wal"))
        let shm = try #require(inode(store + "-shm"))
        #expect(rename(store, moved) == 0)
        if left != .walAndShm { #expect(rename(store + "-wal", moved + "-wal") == 0) }
        if left == .nothing { #expect(rename(store + "-shm", moved + "-shm") == 0) }
        return (moved, wal, shm)
    }

    /// What the promise says of the folder after the next open: the copy aside whole (its `-wal` and `-shm` beside it,
    /// the same files), with every entry; nothing of it at the old names.
    static func expectWholeCopyAside(_ moved: String, wal: UInt64, shm: UInt64, entries total: Int, folder: URL,
                                     label: String) throws {
        let listing = entries(folder)
        #expect(inode(moved + "-wal") == wal, "\(label): the -wal is not beside the moved database: \(listing)")
        #expect(inode(moved + "-shm") == shm, "\(label): the -shm is not beside the moved database: \(listing)")
        let store = folder.appendingPathComponent("Store.sqlite").path
        #expect(inode(store + "-wal") != wal, "\(label): the old -wal is still the store's")
        #expect(inode(store + "-shm") != shm, "\(label): the old -shm is still the store's")
        let aside = (try? int(moved, #"SELECT count(*) FROM "Entry""#)) ?? nil
        #expect(aside == total, "\(label): the copy aside holds \(String(describing: aside)) of \(total) entries: \(listing)")
    }
}

// MARK: - ChangingTheModel.md: .moveAsideAndStartEmpty

@Suite("DocPromiseMove: a killed move aside (ChangingTheModel.md)")
struct DocPromiseMoveIncompatibleTests {
    // ChangingTheModel.md: "A process killed while it moves the store aside (three renames: the database, then its
    // `-wal`, then its `-shm`) can leave the database moved and a companion at its old name. The next open, under the
    // same lock, moves that companion beside the moved database before SQLite sees it (SQLite deletes a `-wal` it
    // finds without its database, and the commits in it), so the copy aside is whole; that open creates a fresh store
    // and reports nothing (the killed process moved the store and could not say so)."
    @Test(arguments: DocPromiseMoveLeftBehind.allCases)
    func theNextOpenMakesTheCopyAsideWholeAndStartsEmptySilently(left: DocPromiseMoveLeftBehind) throws {
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        let (writer, source, total) = try DocPromiseMove.liveV2Copy(into: folder.url)
        try DocPromiseMove.expectCommitsOnlyInTheLog(folder.url, total: total)
        let (moved, wal, shm) = try DocPromiseMove.killMidMove(folder.url, kind: "incompatible",
                                                               stamp: DocPromiseMove.stamp(Date().addingTimeInterval(-5)), left: left)
        let log = DocPromiseMoveErrors()
        var configuration = DocPromiseMove.configuration(folder.url, log: log)
        configuration.incompatibleStore = .moveAsideAndStartEmpty
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: configuration)
        #expect(manager.movedAsideAtOpen == nil, "reports nothing: \(String(describing: manager.movedAsideAtOpen))")
        #expect(manager.recoveredFromCorruption == nil, "reports nothing: \(String(describing: manager.recoveredFromCorruption))")
        #expect(log.all.isEmpty, "reports nothing to onError: \(log.all)")
        #expect(try manager.read { $0.countObjects(ofType: EntryV1.self) } == 0, "a fresh store")
        #expect(try manager.read { $0.countObjects(ofType: AccountV1.self) } == 0, "a fresh store")
        #expect(DocPromiseMove.entries(folder.url).filter { $0.hasPrefix("Store.sqlite.incompatible-") }
                == [moved, moved + "-shm", moved + "-wal"].map { URL(fileURLWithPath: $0).lastPathComponent },
                "one copy aside, whole: \(DocPromiseMove.entries(folder.url))")
        try DocPromiseMove.expectWholeCopyAside(moved, wal: wal, shm: shm, entries: total, folder: folder.url, label: "\(left)")
        // The fresh store is a store of this program: it takes writes and keeps them.
        try manager.writeAndWait { storage in
            let entry = storage.insertNewObject(ofType: EntryV1.self)
            entry.code = 1
            entry.title = "fresh"
            entry.amount = 1
        }
        #expect(try manager.read { $0.allObjects(ofType: EntryV1.self).map(\.title) } == ["fresh"])
        withExtendedLifetime((writer, source)) {}
    }

    // ChangingTheModel.md: "The next open, under the same lock, moves that companion beside the moved database before
    // SQLite sees it" — the next open is a program that does not opt in (the default `.refuse`): the promise names
    // no policy, and its fresh store must not eat the commits in the companion `-wal` either.
    @Test func theNextOpenWithTheDefaultPolicyAlsoMakesTheCopyAsideWhole() throws {
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        let (writer, source, total) = try DocPromiseMove.liveV2Copy(into: folder.url)
        try DocPromiseMove.expectCommitsOnlyInTheLog(folder.url, total: total)
        let (moved, wal, shm) = try DocPromiseMove.killMidMove(folder.url, kind: "incompatible",
                                                               stamp: DocPromiseMove.stamp(Date().addingTimeInterval(-5)), left: .walAndShm)
        let log = DocPromiseMoveErrors()
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: DocPromiseMove.configuration(folder.url, log: log))
        #expect(manager.movedAsideAtOpen == nil && manager.recoveredFromCorruption == nil && log.all.isEmpty, "\(log.all)")
        #expect(try manager.read { $0.countObjects(ofType: EntryV1.self) } == 0)
        try DocPromiseMove.expectWholeCopyAside(moved, wal: wal, shm: shm, entries: total, folder: folder.url, label: "refuse")
        withExtendedLifetime((writer, source)) {}
    }

    // ChangingTheModel.md: "moves that companion beside the moved database ... so the copy aside is whole" — with an
    // older, whole copy aside already in the folder (from an earlier move), the companion goes beside the moved
    // database the kill left, the newest, and the older copy is left as it was.
    @Test func theCompanionGoesBesideTheNewestCopyNotAnOlderOne() throws {
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        // An older copy aside, whole and closed (no companions), from a store moved aside a year ago.
        let oldPath = folder.file("Store.sqlite.incompatible-\(DocPromiseMove.stamp(Date().addingTimeInterval(-365 * 86_400)))").path
        do {
            let queue = try DocPromiseMove.queue(oldPath)
            try queue.write { db in
                try db.execute(sql: #"CREATE TABLE "Entry" ("id" INTEGER PRIMARY KEY, "code" INTEGER)"#)
                try db.execute(sql: #"INSERT INTO "Entry" ("code") VALUES (1), (2), (3)"#)
            }
            try queue.close()
        }
        #expect(!DocPromiseMove.exists(oldPath + "-wal"))
        let oldBytes = try Data(contentsOf: URL(fileURLWithPath: oldPath))
        let (writer, source, total) = try DocPromiseMove.liveV2Copy(into: folder.url)
        let (moved, wal, shm) = try DocPromiseMove.killMidMove(folder.url, kind: "incompatible",
                                                               stamp: DocPromiseMove.stamp(Date().addingTimeInterval(-5)), left: .walAndShm)
        let log = DocPromiseMoveErrors()
        var configuration = DocPromiseMove.configuration(folder.url, log: log)
        configuration.incompatibleStore = .moveAsideAndStartEmpty
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: configuration)
        #expect(manager.movedAsideAtOpen == nil && log.all.isEmpty, "\(log.all)")
        #expect(try manager.read { $0.countObjects(ofType: EntryV1.self) } == 0)
        #expect(!DocPromiseMove.exists(oldPath + "-wal") && !DocPromiseMove.exists(oldPath + "-shm"),
                "the companion went beside the older copy: \(DocPromiseMove.entries(folder.url))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: oldPath)) == oldBytes, "the older copy changed")
        try DocPromiseMove.expectWholeCopyAside(moved, wal: wal, shm: shm, entries: total, folder: folder.url, label: "newest")
        withExtendedLifetime((writer, source)) {}
    }

    // ChangingTheModel.md: "... are then moved (with their `-wal` and `-shm`) to `<name>.sqlite.incompatible-<time>`,
    // never deleted" with "The next open ... moves that companion beside the moved database" — a copy aside that is
    // already whole (its own `-wal` beside it, holding its commits) and a stray `-wal` at the old name that is not its
    // companion (the store that followed was deleted without its log): the open must not put the stray log over the
    // copy's own.
    @Test func aStrayLogNeverReplacesTheLogOfAWholeCopyAside() throws {
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        let (writer, source, total) = try DocPromiseMove.liveV2Copy(into: folder.url)
        let (moved, wal, shm) = try DocPromiseMove.killMidMove(folder.url, kind: "incompatible",
                                                               stamp: DocPromiseMove.stamp(Date().addingTimeInterval(-5)), left: .nothing)
        // The stray log: a later store's -wal, its database gone.
        let later = try TemporaryFolder(prefix: "docpromise-move-later")
        let (laterWriter, laterSource, _) = try DocPromiseMove.liveV1Copy(into: later.url, entries: 20)
        #expect(rename(later.file("Store.sqlite-wal").path, folder.file("Store.sqlite-wal").path) == 0)
        let log = DocPromiseMoveErrors()
        var configuration = DocPromiseMove.configuration(folder.url, log: log)
        configuration.incompatibleStore = .moveAsideAndStartEmpty
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: configuration)
        #expect(manager.movedAsideAtOpen == nil, "\(String(describing: manager.movedAsideAtOpen))")
        let listing = DocPromiseMove.entries(folder.url)
        #expect(DocPromiseMove.inode(moved + "-wal") == wal, "the copy aside's own -wal was replaced or removed: \(listing)")
        #expect(DocPromiseMove.inode(moved + "-shm") == shm, "the copy aside's own -shm was replaced or removed: \(listing)")
        let aside = (try? DocPromiseMove.int(moved, #"SELECT count(*) FROM "Entry""#)) ?? nil
        #expect(aside == total, "the copy aside holds \(String(describing: aside)) of \(total) entries: \(listing)")
        withExtendedLifetime((writer, source, laterWriter, laterSource, manager)) {}
    }
}

// MARK: - CorruptStoresAndDurability.md

@Suite("DocPromiseMove: a killed move of a corrupt store (CorruptStoresAndDurability.md)")
struct DocPromiseMoveCorruptTests {
    // CorruptStoresAndDurability.md: "A process killed while it moves a store aside (three renames: the database, then
    // its `-wal`, then its `-shm`) can leave the database moved and a companion at its old name. The next open, under
    // the same lock, moves that companion beside the moved database before SQLite sees it (SQLite deletes a `-wal` it
    // finds without its database, and the commits in it), so the copy aside is whole; that open creates a fresh store
    // and reports nothing (the killed process moved the store and could not say so)."
    @Test(arguments: DocPromiseMoveLeftBehind.allCases)
    func theNextOpenMakesTheCorruptCopyWholeAndStartsEmptySilently(left: DocPromiseMoveLeftBehind) throws {
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        let (writer, source, total) = try DocPromiseMove.liveV1Copy(into: folder.url)
        try DocPromiseMove.expectCommitsOnlyInTheLog(folder.url, total: total)
        let walBytes = try Data(contentsOf: folder.file("Store.sqlite-wal"))
        let (moved, wal, shm) = try DocPromiseMove.killMidMove(folder.url, kind: "corrupt",
                                                               stamp: DocPromiseMove.stamp(Date().addingTimeInterval(-5)), left: left)
        let log = DocPromiseMoveErrors()
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: DocPromiseMove.configuration(folder.url, log: log))
        #expect(manager.recoveredFromCorruption == nil, "reports nothing: \(String(describing: manager.recoveredFromCorruption))")
        #expect(manager.movedAsideAtOpen == nil)
        #expect(log.all.isEmpty, "reports nothing to onError: \(log.all)")
        #expect(try manager.read { $0.countObjects(ofType: EntryV1.self) } == 0, "a fresh store serves nothing of the old one")
        #expect(try manager.read { $0.countObjects(ofType: AccountV1.self) } == 0)
        // Byte for byte: the -wal beside the copy is the one the kill left.
        #expect((try? Data(contentsOf: URL(fileURLWithPath: moved + "-wal"))) == walBytes, "the -wal aside is not the one left behind")
        try DocPromiseMove.expectWholeCopyAside(moved, wal: wal, shm: shm, entries: total, folder: folder.url, label: "corrupt \(left)")
        withExtendedLifetime((writer, source)) {}
    }

    // CorruptStoresAndDurability.md: "... that open creates a fresh store and reports nothing" — and a second open
    // after it finds nothing left to do: the copy aside stays whole and no second copy appears.
    @Test func aSecondOpenLeavesTheRepairedCopyAlone() throws {
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        let (writer, source, total) = try DocPromiseMove.liveV1Copy(into: folder.url)
        let (moved, wal, shm) = try DocPromiseMove.killMidMove(folder.url, kind: "corrupt",
                                                               stamp: DocPromiseMove.stamp(Date().addingTimeInterval(-5)), left: .walAndShm)
        let log = DocPromiseMoveErrors()
        do {
            let first = try SQLiteStorageManager(model: ledgerModelV1, configuration: DocPromiseMove.configuration(folder.url, log: log))
            try first.writeAndWait { storage in
                let entry = storage.insertNewObject(ofType: EntryV1.self)
                entry.code = 999
                entry.title = "new store"
                entry.amount = 0
            }
        }
        let second = try SQLiteStorageManager(model: ledgerModelV1, configuration: DocPromiseMove.configuration(folder.url, log: log))
        #expect(second.recoveredFromCorruption == nil && log.all.isEmpty, "\(log.all)")
        #expect(try second.read { $0.allObjects(ofType: EntryV1.self).map(\.title) } == ["new store"])
        #expect(DocPromiseMove.entries(folder.url).filter { $0.contains(".corrupt-") }.count == 3,
                "\(DocPromiseMove.entries(folder.url))")
        try DocPromiseMove.expectWholeCopyAside(moved, wal: wal, shm: shm, entries: total, folder: folder.url, label: "second open")
        withExtendedLifetime((writer, source)) {}
    }
}
