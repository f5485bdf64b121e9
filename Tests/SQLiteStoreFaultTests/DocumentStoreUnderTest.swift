import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// DocumentStore in the shared fault suite: `Item` documents, one per write.
struct DocumentStoreUnderTest: SQLiteStoreUnderTest {
    var description: String { "DocumentStore" }
    var probe: String { "document-probe" }

    func probeWrite(_ folder: URL, id: Int, bytes: Int) -> [String] { ["save", folder.path, "item-\(id)", "\(bytes)"] }
    func probeOpen(_ folder: URL) -> [String] { ["open", folder.path] }
    func probeWriteLoop(_ folder: URL) -> [String] { ["write-loop", folder.path] }

    func open(_ folder: URL, busyTimeout: Duration, walSizeLimit: Int, pollInterval: Duration) throws -> any OpenSQLiteStore {
        var configuration = PersistenceConfiguration(url: folder.appendingPathComponent("Store.sqlite"))
        configuration.busyTimeout = busyTimeout
        configuration.walSizeLimit = walSizeLimit
        configuration.otherProcessPollInterval = pollInterval
        return Open(persistence: try Persistence(configuration: configuration))
    }

    func checkAfterKill(_ folder: URL, _ kill: KilledProbe) throws -> Int {
        let store = try Persistence(url: folder.appendingPathComponent("Store.sqlite"))
        let venns = try store.query(VennDiagram.self).count()
        let circles = try store.query(Circle.self).count()
        #expect(circles == 2 * venns, "no half transaction: \(kill)")
        var acknowledged = 0
        for line in kill.outputLines where line.hasPrefix("committed ") {
            let parts = line.split(separator: " ")
            #expect(try store.snapshot("venn-\(parts[1])")?.revision == String(parts[2]), "acknowledged venn-\(parts[1]) is there: \(kill)")
            acknowledged += 1
        }
        #expect(acknowledged >= 1, "\(kill)")
        return acknowledged
    }

    func openDamaged(_ folder: URL, lockTimeout: Duration) throws -> Recovery {
        var configuration = PersistenceConfiguration(url: folder.appendingPathComponent("Store.sqlite"))
        configuration.recoveryLockTimeout = lockTimeout
        let persistence = try Persistence(configuration: configuration)
        let rows = try persistence.query(Item.self).count()
        guard case .corruptStoreMovedAside(let file, let movedTo, let cause)? = persistence.recoveredFromCorruption else {
            return Recovery(rows: rows, movedTo: nil, cause: nil)
        }
        #expect(file == configuration.url.path)
        return Recovery(rows: rows, movedTo: movedTo, cause: cause)
    }

    func fault(_ error: any Error) -> StoreFault? {
        switch error as? DocumentStoreError {
        case .busyTimeout(let file, let seconds)?: .busyTimeout(file: file, seconds: seconds)
        case .readOnly(let file)?: .readOnly(file: file)
        case .diskFull(let file)?: .diskFull(file: file)
        case .corruptDatabase(let file, _)?: .corruptDatabase(file: file)
        case .cannotOpen(let file, _)?: .cannotOpen(file: file)
        default: nil
        }
    }

    final class Open: OpenSQLiteStore, @unchecked Sendable {
        let persistence: Persistence
        init(persistence: Persistence) { self.persistence = persistence }

        func write(id: Int, bytes: Int) throws {
            try persistence.save(Item(identifier: "item-\(id)", body: ["text": .string(String(repeating: "w", count: bytes))]))
        }

        func count() throws -> Int { try persistence.query(Item.self).count() }

        func otherCommits() async throws -> AsyncStream<Void> {
            let results = persistence.query(Item.self).observe()
            var iterator = results.makeAsyncIterator()
            let initial = try await iterator.next()?.count ?? 0   // subscribed: the poller has its baseline
            let box = IteratorBox(iterator)
            return AsyncStream { continuation in
                let task = Task {
                    var last = initial
                    while let snapshots = try? await box.next() {
                        if snapshots.count != last { continuation.yield() }
                        last = snapshots.count
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        func checkForOtherCommits() { persistence.checkForOtherProcessesCommits() }
    }

    /// Hands a live query's iterator to the task that drains it.
    final class IteratorBox: @unchecked Sendable {
        var iterator: AsyncThrowingStream<[DocumentSnapshot], Error>.AsyncIterator
        init(_ iterator: AsyncThrowingStream<[DocumentSnapshot], Error>.AsyncIterator) { self.iterator = iterator }
        func next() async throws -> [DocumentSnapshot]? { try await iterator.next() }
    }
}
