import DocumentStore
import DocumentTestModel
import FileStorageKit
import Foundation
import Synchronization
import Testing
import TestSupport

/// `deleteDatabase()` removes the files only when nothing else has them open, and closes the store.
@Suite struct DeleteDatabaseTests {
    static func files(_ url: URL) -> [String] {
        ["", "-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
    }

    @Test func itRemovesTheFilesAndEveryLaterUseIsATypedError() throws {
        let store = try TestStore("delete-files")
        let persistence = store.persistence
        let square = Square(side: 2)
        try persistence.save(square)
        #expect(Self.files(store.url).contains(""))
        try persistence.deleteDatabase()
        #expect(Self.files(store.url).isEmpty, "the file and its -wal and -shm are gone")
        #expect(!persistence.isCached(identifier: square.identifier), "the identity map is empty")
        let deleted = DocumentStoreError.databaseDeleted(file: store.url.path)
        #expect(throws: deleted) { let _: Square? = try persistence.load(square.identifier) }
        #expect(throws: deleted) { try persistence.save(Circle(radius: 1)) }
        #expect(throws: deleted) { _ = try persistence.loadAll(kind: Square.self) }
        #expect(throws: deleted) { try persistence.deleteDatabase() }
        // The same file opens again as a new, empty store.
        let fresh = try Persistence(configuration: persistence.configuration)
        #expect(try fresh.query(Square.self).count() == 0)
    }

    @Test func itRefusesWhileAnotherPersistenceHasTheFileOpenAndChangesNothing() throws {
        let store = try TestStore("delete-in-use")
        let square = Square(side: 3)
        try store.persistence.save(square)
        do {
            let other = try store.reopen()
            #expect(throws: DocumentStoreError.databaseInUse(file: store.url.path)) { try store.persistence.deleteDatabase() }
            #expect(throws: DocumentStoreError.databaseInUse(file: store.url.path)) { try other.deleteDatabase() }
            // Both still work, in WAL mode as before.
            try other.save(Circle(radius: 4))
            let loaded: Square? = try other.load(square.identifier)
            #expect(loaded?.side == 3)
            try store.persistence.save(Square(side: 5))
            #expect(try store.persistence.query(Shape.self).count() == 3)
        }
        try store.persistence.deleteDatabase()   // the other one was released
        #expect(Self.files(store.url).isEmpty)
    }

    @Test func itRefusesWhileALazySequenceIsUnfinishedAndInsideATransaction() throws {
        let store = try TestStore("delete-sequence")
        try store.persistence.transaction { persistence in
            for side in 1...5 { try persistence.save(Square(side: Double(side))) }
        }
        do {
            var iterator = try store.persistence.loadAll(kind: Square.self, pageSize: 2).makeIterator()
            #expect(try iterator.next() != nil)
            #expect(throws: DocumentStoreError.databaseInUse(file: store.url.path)) { try store.persistence.deleteDatabase() }
        }
        #expect(throws: DocumentStoreError.self) {
            try store.persistence.transaction { try $0.deleteDatabase() }
        }
        #expect(Self.files(store.url).contains(""))
        try store.persistence.deleteDatabase()
        #expect(Self.files(store.url).isEmpty)
    }

    @Test func itRefusesWhileALiveQueryWatchesTheFile() async throws {
        let store = try TestStore("delete-live") { $0.otherProcessPollInterval = .milliseconds(10) }
        let emissions = Emissions()
        let watcher = Task {
            for try await _ in store.persistence.query(Square.self).observe() { emissions.count.add(1, ordering: .relaxed) }
        }
        // The polling connection is open once the query has emitted.
        #expect(await waitUntil(timeout: .seconds(120)) { emissions.count.load(ordering: .relaxed) > 0 })
        #expect(throws: DocumentStoreError.databaseInUse(file: store.url.path)) { try store.persistence.deleteDatabase() }
        watcher.cancel()
        _ = try? await watcher.value
        // The polling task closes its connection as it ends: the delete succeeds once it did.
        let deleted = await waitUntil(timeout: .seconds(120), interval: .milliseconds(5)) {
            (try? store.persistence.deleteDatabase()) != nil
        }
        #expect(deleted && Self.files(store.url).isEmpty)
    }

    final class Emissions: Sendable { let count = Atomic<Int>(0) }

    @Test func dalisDatabaseNameOpensInTheApplicationSupportFolder() throws {
        let folder = try TemporaryFolder(prefix: "delete-dali")
        let directories = AppDirectories(appName: "dali", root: folder.url)
        let persistence = try Persistence(databaseName: "dali_tests", directories: directories)
        #expect(persistence.url.lastPathComponent == "dali_tests.sqlite")
        #expect(persistence.url.deletingLastPathComponent().path.hasPrefix(folder.url.path))
        try persistence.save(Square(side: 1))
        try persistence.deleteDatabase()
        #expect(Self.files(persistence.url).isEmpty)
    }
}
