// Black-box test of ErrorsAndTheFile.md's `corruptStoreMovedAside` row, its last sentence: a process killed between
// the renames of a move aside. The state such a kill leaves is built by hand: the files of a store copied while the
// `Persistence` that wrote them is still open (its commits in the `-wal` only), the database renamed to
// `<name>.sqlite.corrupt-<time>`, its `-wal` (and `-shm`) left at the old names. ManagedStorageTests cannot import
// DocumentStore, so this lives here.
import DocumentStore
import DocumentTestModel
import Foundation
import GRDB
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

enum DocPromiseMoveDocs {
    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter.string(from: date)
    }

    static func open(_ folder: URL) throws -> Persistence {
        var configuration = PersistenceConfiguration(url: folder.appendingPathComponent("Store.sqlite"))
        configuration.busyTimeout = .seconds(5)
        let persistence = try Persistence(configuration: configuration)
        persistence.register(persistableKind: Square.self)
        persistence.register(persistableKind: Circle.self)
        return persistence
    }

    static func int(_ path: String, _ sql: String) throws -> Int? {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) }
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(info.st_ino)
    }

    static func entries(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}

@Suite("DocPromiseMove: a killed move of a corrupt store (ErrorsAndTheFile.md)")
struct DocPromiseMoveDocumentStoreTests {
    // ErrorsAndTheFile.md, `corruptStoreMovedAside(file:movedTo:cause:)`: "A process killed between the renames leaves
    // a companion at its old name, which the next open moves beside the copy before SQLite can delete it (and reports
    // nothing)" — with "moved it, byte for byte, to `<name>.sqlite.corrupt-<time>` (with its `-wal` and `-shm` ...)
    // and created a new store".
    @Test(arguments: ["walAndShm", "shmOnly", "nothing"])
    func theNextOpenMovesTheCompanionBesideTheCopyAndReportsNothing(left: String) throws {
        let source = try TemporaryFolder(prefix: "docpromise-move-src")
        let folder = try TemporaryFolder(prefix: "docpromise-move")
        let writer = try DocPromiseMoveDocs.open(source.url)
        var identifiers: [String] = []
        for side in 1...12 {
            let square = Square(side: Double(side))
            try writer.save(square)
            identifiers.append(square.identifier)
        }
        let store = source.file("Store.sqlite").path
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: folder.file("Store.sqlite" + suffix).path)
        }
        // The commits are in the -wal: the database file alone does not hold them.
        do {
            let scratch = try TemporaryFolder(prefix: "docpromise-move-check")
            try FileManager.default.copyItem(at: folder.file("Store.sqlite"), to: scratch.file("alone.sqlite"))
            let alone = (try? DocPromiseMoveDocs.int(scratch.file("alone.sqlite").path, "SELECT count(*) FROM documents")) ?? nil
            #expect(alone ?? 0 < identifiers.count, "the database alone holds \(String(describing: alone)): the test needs commits in the -wal")
        }
        let path = folder.file("Store.sqlite").path
        let moved = path + ".corrupt-" + DocPromiseMoveDocs.stamp(Date().addingTimeInterval(-5))
        let wal = try #require(DocPromiseMoveDocs.inode(path + "-wal"))
        let shm = try #require(DocPromiseMoveDocs.inode(path + "-shm"))
        #expect(rename(path, moved) == 0)
        if left != "walAndShm" { #expect(rename(path + "-wal", moved + "-wal") == 0) }
        if left == "nothing" { #expect(rename(path + "-shm", moved + "-shm") == 0) }   // killed after the third rename

        let persistence = try DocPromiseMoveDocs.open(folder.url)
        #expect(persistence.recoveredFromCorruption == nil, "reports nothing: \(String(describing: persistence.recoveredFromCorruption))")
        for identifier in identifiers {
            let loaded: Square? = try persistence.load(identifier)
            #expect(loaded == nil, "the new store serves a document of the moved one")
        }
        let listing = DocPromiseMoveDocs.entries(folder.url)
        #expect(DocPromiseMoveDocs.inode(moved + "-wal") == wal, "the -wal is not beside the copy: \(listing)")
        #expect(DocPromiseMoveDocs.inode(moved + "-shm") == shm, "the -shm is not beside the copy: \(listing)")
        #expect(DocPromiseMoveDocs.inode(path + "-wal") != wal)
        let aside = (try? DocPromiseMoveDocs.int(moved, "SELECT count(*) FROM documents")) ?? nil
        #expect(aside == identifiers.count, "the copy aside holds \(String(describing: aside)) of \(identifiers.count) documents: \(listing)")
        // The new store works.
        let fresh = Square(side: 99)
        try persistence.save(fresh)
        let back: Square? = try persistence.load(fresh.identifier)
        #expect(back?.side == 99)
        withExtendedLifetime(writer) {}
    }
}
