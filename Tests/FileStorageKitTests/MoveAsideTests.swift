import Foundation
import Testing
import TestSupport
import FileStorageKit

@Suite("moving damaged files aside")
struct MoveAsideTests {
    @Test("a damaged file and its companions move to <name>.corrupt-<time>, a clash gets -2, and the bytes are kept")
    func movesWithCompanions() throws {
        let folder = try TemporaryFolder(prefix: "move-aside")
        let store = folder.file("Store.sqlite")
        try Data("main".utf8).write(to: store)
        try Data("wal".utf8).write(to: folder.file("Store.sqlite-wal"))
        let now = Date()
        let first = try DurableFile.moveAside(store, companions: ["-wal", "-shm"], at: now)
        #expect(first.lastPathComponent.hasPrefix("Store.sqlite.corrupt-"))
        #expect(try Data(contentsOf: first) == Data("main".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.path + "-wal")) == Data("wal".utf8))
        #expect(!FileManager.default.fileExists(atPath: store.path))
        #expect(!FileManager.default.fileExists(atPath: first.path + "-shm"), "a companion that was not there is not made")
        // Two more damaged files in the same millisecond: -2 is taken by a squatter, so the next is -3.
        try Data("again".utf8).write(to: store)
        try Data("squatter".utf8).write(to: URL(fileURLWithPath: first.path + "-2"))
        let second = try DurableFile.moveAside(store, at: now)
        #expect(second.path == first.path + "-3")
        #expect(try Data(contentsOf: first) == Data("main".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.path + "-2")) == Data("squatter".utf8))
        #expect(try Data(contentsOf: second) == Data("again".utf8))
    }

    @Test("a file that is not there is a typed error naming it")
    func missingFile() throws {
        let folder = try TemporaryFolder(prefix: "move-aside-missing")
        #expect(throws: FileStorageError.self) { try DurableFile.moveAside(folder.file("absent.plist")) }
    }
}
