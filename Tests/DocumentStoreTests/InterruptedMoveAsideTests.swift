import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// DocumentStore moves a corrupt store aside as ManagedStorage does, three renames (the database,
/// `-wal`, `-shm`), and finishes at open a move a killed process left half done (ManagedStorage's
/// `MoveAsideKillTests` kill real processes at each rename). The invariant: the copy aside holds every
/// commit the store's `-wal` held, and the new store serves none of it.
@Suite struct InterruptedMoveAsideTests {
    @Test("a -wal left behind by a move aside that a killed process began follows the moved store, with every commit in it")
    func leftBehindCompanionsFollowTheMovedStore() throws {
        let source = try TemporaryFolder(prefix: "docstore-move-source")
        let target = try TemporaryFolder(prefix: "docstore-move-left")
        let aside = target.file("Shapes.sqlite.corrupt-20261128T101500.000Z")
        do {
            let persistence = try Persistence(configuration: PersistenceConfiguration(url: source.file("Shapes.sqlite")))
            persistence.register(persistableKind: Square.self)
            for side in 1...40 { try persistence.save(Square(side: Double(side))) }
            // The files as a kill after the move's first rename leaves them (copied while the store is
            // open, so its commits are still in its -wal): the database renamed, its -wal and -shm not.
            let wal = (try? FileManager.default.attributesOfItem(atPath: source.file("Shapes.sqlite-wal").path)[.size] as? Int) ?? 0
            #expect(wal > 4096, "the test needs commits in the -wal; it has \(wal) bytes")
            try FileManager.default.copyItem(at: source.file("Shapes.sqlite"), to: aside)
            for suffix in ["-wal", "-shm"] {
                try FileManager.default.copyItem(at: source.file("Shapes.sqlite" + suffix), to: target.file("Shapes.sqlite" + suffix))
            }
        }
        let fresh = try Persistence(configuration: PersistenceConfiguration(url: target.file("Shapes.sqlite")))
        fresh.register(persistableKind: Square.self)
        #expect(try fresh.query(Square.self).count() == 0, "the new store serves what was moved aside")
        let names = try FileManager.default.contentsOfDirectory(atPath: target.url.path).sorted()
        #expect(FileManager.default.fileExists(atPath: aside.path + "-wal"), "the -wal did not follow: \(names)")
        let kept = try Persistence(configuration: PersistenceConfiguration(url: aside))
        kept.register(persistableKind: Square.self)
        #expect(try kept.query(Square.self).count() == 40, "what was moved aside lost commits")
    }
}
