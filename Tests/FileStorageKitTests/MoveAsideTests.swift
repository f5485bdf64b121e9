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

    static func write(_ text: String, _ url: URL) throws { try Data(text.utf8).write(to: url) }
    static func read(_ url: URL) -> String? { (try? Data(contentsOf: url)).map { String(decoding: $0, as: UTF8.self) } }

    @Test("companions a killed move left at their names follow the newest copy moved aside, whatever its label; nothing is deleted")
    func finishingAnInterruptedMove() throws {
        let folder = try TemporaryFolder(prefix: "move-aside-finish")
        let store = folder.file("Store.sqlite")
        let older = folder.file("Store.sqlite.corrupt-20261128T101500.000Z")
        let sameMillisecond = folder.file("Store.sqlite.corrupt-20261128T101500.000Z-2")
        let newest = folder.file("Store.sqlite.incompatible-20261128T101500.001Z")
        for url in [older, sameMillisecond, newest] { try Self.write(url.lastPathComponent, url) }
        try Self.write("older wal", URL(fileURLWithPath: older.path + "-wal"))
        try Self.write("left wal", folder.file("Store.sqlite-wal"))
        try Self.write("left shm", folder.file("Store.sqlite-shm"))
        let moved = try DurableFile.finishMoveAside(of: store, companions: ["-wal", "-shm"])
        #expect(moved.map(\.lastPathComponent) == [newest.lastPathComponent + "-wal", newest.lastPathComponent + "-shm"])
        #expect(Self.read(URL(fileURLWithPath: newest.path + "-wal")) == "left wal")
        #expect(Self.read(URL(fileURLWithPath: newest.path + "-shm")) == "left shm")
        #expect(Self.read(URL(fileURLWithPath: older.path + "-wal")) == "older wal")
        #expect(!FileManager.default.fileExists(atPath: store.path + "-wal"))
        // Nothing more to finish.
        #expect(try DurableFile.finishMoveAside(of: store, companions: ["-wal", "-shm"]).isEmpty)
    }

    @Test("with the store in place, or no copy lacking the companion, nothing follows a copy: kept as an orphan at most")
    func finishingWithoutACopyThatLacksTheCompanion() throws {
        let folder = try TemporaryFolder(prefix: "move-aside-orphan")
        let store = folder.file("Store.sqlite")
        try Self.write("live", store)
        try Self.write("live wal", folder.file("Store.sqlite-wal"))
        #expect(try DurableFile.finishMoveAside(of: store, companions: ["-wal"]).isEmpty, "a live store's -wal never moves")
        #expect(Self.read(folder.file("Store.sqlite-wal")) == "live wal")
        try FileManager.default.removeItem(at: store)
        // The only copy has its -wal already: this one is nobody's, and is kept under its own name.
        let copy = folder.file("Store.sqlite.corrupt-20261128T101500.000Z")
        try Self.write("copy", copy)
        try Self.write("copy wal", URL(fileURLWithPath: copy.path + "-wal"))
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let moved = try DurableFile.finishMoveAside(of: store, companions: ["-wal"], at: date)
        #expect(moved.map(\.lastPathComponent) == ["Store.sqlite.orphan-\(DurableFile.timestamp(date))-wal"])
        #expect(Self.read(moved[0]) == "live wal")
        #expect(Self.read(URL(fileURLWithPath: copy.path + "-wal")) == "copy wal")
    }
}
