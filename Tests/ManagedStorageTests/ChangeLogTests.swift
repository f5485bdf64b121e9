import Foundation
import GRDB
@testable import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport

/// The store's change log: another manager of the same file (as another process would) receives each
/// commit with the objects it changed and applies it object by object; what it cannot know (another
/// program's commit, trimmed entries) it refetches. The managers poll only when told (`checkNow`).
@MainActor
@Suite struct ChangeLogTests {
    static let sort = [SortDescriptor(\Order.total), SortDescriptor(\Order.orderID)]

    /// A manager of `Store.sqlite` in `folder`, polling only when told.
    nonisolated static func open(_ folder: URL, configure: (inout StorageConfiguration) -> Void = { _ in }) throws -> SQLiteStorageManager {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.otherProcessPollInterval = .seconds(3600)
        configure(&configuration)
        return try SQLiteStorageManager(model: testModel, configuration: configuration)
    }

    static func fresh(_ manager: SQLiteStorageManager) throws -> TableSnapshot {
        try ResultsControllerTests.freshFetch(manager, sectioned: true, predicate: nil, sort: sort, limit: nil)
    }

    /// The rows of the change log (one per commit, with the kinds of its sections), read by a
    /// connection of the test's own.
    nonisolated static func logRows(_ folder: URL) throws -> [(sequence: Int64, writer: Int64, kinds: [ChangeLog.Kind])] {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, writer, changes FROM managedstorage_changes ORDER BY sequence")
                .map { ($0[0], $0[1], ChangeLog.decode($0[2])?.map(\.kind) ?? []) }
        }
    }

    /// Polls `follower` now and waits until `controller` handled what it published.
    static func poll(_ follower: SQLiteStorageManager, _ controller: ResultsController<Order>) async -> Bool {
        follower.checkForOtherProcessesCommits()
        return await settle(controller, follower, timeout: .seconds(120))
    }

    /// `received` is `sent` as another manager's commit: the same objects, with `fromAnotherProcess`.
    static func expectDelivered(_ received: StorageChanges?, as sent: StorageChanges?, _ what: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        guard let received, let sent else {
            Issue.record("\(what): nothing delivered (\(String(describing: received))) or sent (\(String(describing: sent)))",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(received.fromAnotherProcess && received.objectsAreKnown, "\(what): \(received)", sourceLocation: sourceLocation)
        #expect(received.inserted == sent.inserted && received.updated == sent.updated && received.deleted == sent.deleted,
                "\(what): received \(received), sent \(sent)", sourceLocation: sourceLocation)
    }

    @Test func anotherManagersInsertsUpdatesAndDeletesApplyObjectByObject() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog")
        let writer = try Self.open(folder.url)
        try await writer.write { storage in
            for id in 1...20 { insertOrder(storage, id: Int64(id), status: ["a", "b", "c"][id % 3], total: Double(id), items: 1) }
        }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sectionNameKeyPath: "status", sortedBy: Self.sort)
        let callbacks = CallbackRecorder(controller)
        try controller.performFetch()
        var model = TableSnapshot(controller)
        let received = ChangeRecorder(follower)
        let sent = ChangeRecorder(writer)

        // Each step: the writer commits; the follower polls; what it received is what the writer
        // published, its controller's batches turn the rows it held into a fresh fetch, and it never refetched.
        func step(_ what: String, commits: Int = 1, _ operation: @escaping @Sendable (StorageType) throws -> Void) async throws {
            let before = (received.count, sent.count)
            for _ in 0..<commits { try await writer.write(operation) }
            #expect(await sent.wait(for: before.1 + commits))
            #expect(await Self.poll(follower, controller), "\(what): the controller did not catch up")
            #expect(await received.wait(for: before.0 + commits), "\(what): \(received.changes)")
            for offset in 0..<commits {
                Self.expectDelivered(received.changes.dropFirst(before.0 + offset).first,
                                     as: sent.changes.dropFirst(before.1 + offset).first, "\(what), commit \(offset + 1)")
            }
            let expected = try Self.fresh(follower)
            for batch in callbacks.take() {
                switch applyBatch(batch, to: model) {
                case .success(let next): model = next
                case .failure(let violation): Issue.record("\(what): \(violation)")
                }
            }
            #expect(model == expected, "\(what): the batches give \(model), a fresh fetch \(expected)")
            #expect(TableSnapshot(controller) == expected, "\(what)")
            #expect(controller.refetchCount == 0, "\(what): the controller refetched")
            model = expected
        }

        try await step("insert") { storage in
            for id in 21...22 {
                let order = insertOrder(storage, id: Int64(id), status: "b", total: 0.5, items: 2)
                let note = storage.insertNewObject(ofType: OrderNote.self)
                note.text = "note \(id)"
                note.order = order
            }
        }
        #expect(received.changes.last?.inserted.count == 8, "2 orders, 4 items, 2 notes")
        try await step("update, across sections") { storage in
            storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 3 })?.status = "b"
            storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 5 })?.total = 100
            storage.firstObject(ofType: OrderItem.self, matching: #Predicate { $0.itemID == 700 })?.quantity = 9
        }
        try await step("delete: items cascade, notes are set to nothing") { storage in
            if let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 21 }) { storage.deleteObject(order) }
        }
        let deletion = received.changes.last
        #expect(deletion?.deleted.filter { $0.entityName == "Order" }.count == 1 && deletion?.deleted.filter { $0.entityName == "OrderItem" }.count == 2)
        #expect(deletion?.updated.map(\.entityName) == ["OrderNote"], "the note whose order was set to NULL: \(String(describing: deletion))")
        try await step("three commits between two polls", commits: 3) { storage in
            let count = Int64(storage.countObjects(ofType: Order.self))
            insertOrder(storage, id: 100 + count, status: "c", total: Double(count))
            storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 1 })?.total += 3
        }
        #expect(try Self.logRows(folder.url).allSatisfy { $0.writer != 0 })
    }

    @Test func aRolledBackOperationLogsNothingAndDeliversNothing() async throws {
        struct Refused: Error {}
        let folder = try TemporaryFolder(prefix: "managed-changelog-rollback")
        let writer = try Self.open(folder.url)
        try await writer.write { storage in _ = insertOrder(storage, id: 1) }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sortedBy: Self.sort)
        try controller.performFetch()
        let received = ChangeRecorder(follower)
        let logged = try Self.logRows(folder.url)
        #expect(logged.count == 1 && logged.first?.kinds == [.inserted])

        // Thrown after a save wrote the rows (and a fetch flushed them) in the transaction.
        await #expect(throws: Refused.self) {
            try await writer.write { storage in
                insertOrder(storage, id: 2, items: 3)
                storage.saveIfNeeded()
                _ = storage.countObjects(ofType: Order.self)
                throw Refused()
            }
        }
        // A recorded error (a customer with orders cannot be deleted) rolls back the same way.
        await #expect(throws: StorageError.self) {
            try await writer.write { storage in
                let customer = storage.insertNewObject(ofType: Customer.self)
                customer.name = "denied"
                storage.firstObject(ofType: Order.self)?.customer = customer
                storage.saveIfNeeded()
                storage.deleteObject(customer)
                storage.saveIfNeeded()
            }
        }
        #expect(try Self.logRows(folder.url).map(\.sequence) == logged.map(\.sequence), "the rolled-back operations logged nothing")
        #expect(await Self.poll(follower, controller))
        #expect(received.changes.isEmpty, "\(received.changes)")
        // The next commit is delivered alone, numbered right after the last one.
        try await writer.write { storage in _ = insertOrder(storage, id: 3) }
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 1))
        #expect(received.changes.count == 1 && received.changes.first?.inserted.count == 1 && received.changes.first?.objectsAreKnown == true,
                "\(received.changes)")
        #expect(try Self.logRows(folder.url).map(\.sequence) == [1, 2])
        #expect(controller.fetchedObjects.map(\.orderID) == [1, 3] && controller.refetchCount == 0)
    }

    @Test func historyLongerThanTheLimitIsRefetchedAndNothingIsMissed() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-trim")
        let writer = try Self.open(folder.url) { $0.changeLogLimit = 5 }
        try await writer.write { storage in for id in 1...10 { insertOrder(storage, id: Int64(id), status: "a", total: Double(id)) } }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sectionNameKeyPath: "status", sortedBy: Self.sort)
        try controller.performFetch()
        let received = ChangeRecorder(follower)
        func commit(_ n: Int) async throws {
            for k in 0..<n {
                try await writer.write { storage in
                    let orders = storage.allObjects(ofType: Order.self)
                    orders[k % orders.count].total += 7
                    orders[(k * 3) % orders.count].status = ["a", "b"][k % 2]
                    if k % 4 == 3 { storage.deleteObject(orders[k % orders.count]) }
                    insertOrder(storage, id: Int64(1000 + orders.count * 10 + k), status: "b", total: Double(k))
                }
            }
        }

        // Within the limit: every commit, object by object.
        try await commit(5)
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 5))
        #expect(received.changes.count == 5 && received.changes.allSatisfy { $0.objectsAreKnown }, "\(received.changes)")
        #expect(controller.refetchCount == 0)
        #expect(TableSnapshot(controller) == (try Self.fresh(follower)))

        // Past it: the entries the follower had not read are gone, so it refetches, and misses nothing.
        try await commit(12)
        let kept = try Self.logRows(folder.url)
        #expect(Set(kept.map(\.sequence)).count == 5 && kept.first?.sequence == (kept.last?.sequence ?? 0) - 4,
                "the log keeps the newest 5 commits: \(kept.map(\.sequence))")
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 6))
        let unknown = received.changes.dropFirst(5)
        #expect(unknown.count == 1 && unknown.first?.fromAnotherProcess == true && unknown.first?.objectsAreKnown == false
                && unknown.first?.inserted.isEmpty == true, "\(unknown)")
        #expect(controller.refetchCount == 1)
        #expect(TableSnapshot(controller) == (try Self.fresh(follower)))

        // And it goes on from the log's end, object by object again.
        try await commit(2)
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 8))
        #expect(received.changes.dropFirst(6).allSatisfy { $0.objectsAreKnown } && controller.refetchCount == 1)
        #expect(TableSnapshot(controller) == (try Self.fresh(follower)))
    }

    @Test func aManagerOpenedLaterStartsAtTheEndOfTheLog() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-late")
        let writer = try Self.open(folder.url)
        let sent = ChangeRecorder(writer)
        for id in 1...3 { try await writer.write { storage in _ = insertOrder(storage, id: Int64(id)) } }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sortedBy: Self.sort)
        try controller.performFetch()
        let received = ChangeRecorder(follower)
        try await writer.write { storage in storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 2 })?.total = 99 }
        #expect(await sent.wait(for: 4))
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 1))
        #expect(received.changes.count == 1, "only the commit after it opened: \(received.changes)")
        Self.expectDelivered(received.changes.first, as: sent.changes.last, "the update")
        #expect(controller.fetchedObjects.map(\.orderID) == [1, 3, 2] && controller.refetchCount == 0)
    }

    @Test func anotherProgramsCommitsAreRefetchedWhenTheyCanBeTold() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-foreign")
        let path = folder.url.appendingPathComponent("Store.sqlite").path
        let writer = try Self.open(folder.url)
        try await writer.write { storage in for id in 1...6 { insertOrder(storage, id: Int64(id), status: "a", total: Double(id)) } }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sectionNameKeyPath: "status", sortedBy: Self.sort)
        try controller.performFetch()
        let received = ChangeRecorder(follower)
        func status(_ id: Int64) -> String? { controller.fetchedObjects.first { $0.orderID == id }?.status }

        // Alone at a poll: no entry, so unknown.
        try rawSQL(path, "UPDATE \"Order\" SET status = 'x' WHERE orderID = 1")
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 1))
        #expect(received.changes.last?.fromAnotherProcess == true && received.changes.last?.objectsAreKnown == false)
        #expect(status(1) == "x" && controller.refetchCount == 1)

        // Right before a logged commit, at one poll: the writer saw it and marked its entry.
        try rawSQL(path, "UPDATE \"Order\" SET status = 'x' WHERE orderID = 2")
        try await writer.write { storage in storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 3 })?.total = 50 }
        #expect(try Self.logRows(folder.url).last?.kinds == [.unlogged, .updated])
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 2))
        #expect(received.changes.count == 2 && received.changes.last?.objectsAreKnown == false, "\(received.changes)")
        #expect(status(2) == "x" && controller.refetchCount == 2)
        #expect(TableSnapshot(controller) == (try Self.fresh(follower)))

        // Right after a logged commit, at one poll: the documented limitation. The logged commit is
        // applied; the other program's is seen at the writer's next commit, which marks its entry.
        try await writer.write { storage in storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 4 })?.total = 60 }
        try rawSQL(path, "UPDATE \"Order\" SET status = 'x' WHERE orderID = 5")
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 3))
        #expect(received.changes.last?.objectsAreKnown == true && status(5) == "a" && controller.refetchCount == 2)
        try await writer.write { storage in storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 6 })?.total = 70 }
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 4))
        #expect(received.changes.last?.objectsAreKnown == false && status(5) == "x" && controller.refetchCount == 3)
        #expect(TableSnapshot(controller) == (try Self.fresh(follower)))
    }

    @Test func aLogDroppedByHandIsMadeAgainAndItsLossRefetched() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-dropped")
        let writer = try Self.open(folder.url)
        try await writer.write { storage in _ = insertOrder(storage, id: 1) }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sortedBy: Self.sort)
        try controller.performFetch()
        let received = ChangeRecorder(follower)
        try rawSQL(folder.url.appendingPathComponent("Store.sqlite").path, "DROP TABLE managedstorage_changes")
        try await writer.write { storage in _ = insertOrder(storage, id: 2) }
        #expect(try Self.logRows(folder.url).map(\.kinds) == [[.unlogged, .inserted]],
                "made again, its first entry marked: somebody committed without logging (the drop)")
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 1))
        #expect(received.changes.first?.objectsAreKnown == false && controller.refetchCount == 1)
        try await writer.write { storage in _ = insertOrder(storage, id: 3) }
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 2))
        #expect(received.changes.last?.objectsAreKnown == true && controller.refetchCount == 1)
        #expect(controller.fetchedObjects.map(\.orderID) == [1, 2, 3])
    }

    @Test func anotherManagersResetArrivesAsAReset() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-reset")
        let writer = try Self.open(folder.url)
        try await writer.write { storage in for id in 1...4 { insertOrder(storage, id: Int64(id), items: 1) } }
        let follower = try Self.open(folder.url)
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sortedBy: Self.sort)
        let callbacks = CallbackRecorder(controller)
        try controller.performFetch()
        let received = ChangeRecorder(follower)
        writer.reset()
        #expect(await Self.poll(follower, controller))
        #expect(await received.wait(for: 1))
        let change = received.changes.first
        #expect(change?.fromAnotherProcess == true && change?.resetEntities == Set(testModel.entities.map { $0.entityName }),
                "\(String(describing: change))")
        #expect(change?.objectsAreKnown == false)
        #expect(callbacks.resets == 1 && controller.fetchedObjects.isEmpty)
    }

    @Test func theLogOutlivesMigrationsAndIsNoEntity() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-migrate")
        try MigrationTests.makeV1Store(folder.url)
        let path = folder.url.appendingPathComponent("Store.sqlite").path
        func log() throws -> [String] {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM managedstorage_changes ORDER BY sequence").map { "\($0)" }
            }
        }
        let before = try log()
        #expect(before.count == 1, "one commit of people and pets: \(before)")
        // Version 2 renames and adds entities, version 3 drops them: the log stays as it was.
        _ = try SQLiteStorageManager(model: modelV2, configuration: MigrationTests.configuration(folder.url))
        #expect(try log() == before)
        let v3 = try SQLiteStorageManager(model: modelV3, configuration: MigrationTests.configuration(folder.url))
        #expect(try log() == before)
        try await v3.write { storage in storage.insertNewObject(ofType: PersonV3.self).fullName = "After" }
        #expect(try log().count == 2)
        // No entity may take its name.
        #expect(throws: StorageError.self) {
            _ = try SQLiteStorageManager.inMemory(model: StorageModel(entities: [ChangeLogImpostor.self]), name: "impostor")
        }
    }

    @Test func rowIDsPackAndUnpackExactly() {
        var rng = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        print("ChangeLogTests: packing, seed \(rng.seed)")
        var cases: [[Int64]] = [[], [1], [Int64.max], [Int64.min], [Int64.min, Int64.max], [-1, 0, 1], Array(1...100_000),
                                Array(5...9) + Array(11...12) + [Int64.max - 1, Int64.max], [3, 1, 2, 7, 5]]
        for _ in 0..<300 {
            var ids = Set<Int64>()
            let base = Int64.random(in: -1_000_000...1_000_000_000, using: &rng)
            for _ in 0..<Int.random(in: 0...200, using: &rng) {
                if Bool.random(using: &rng) {
                    let start = base + Int64.random(in: 0...5000, using: &rng)
                    ids.formUnion(start...(start + Int64.random(in: 0...40, using: &rng)))
                } else {
                    ids.insert(Int64.random(in: Int64.min...Int64.max, using: &rng))
                }
            }
            cases.append(Array(ids).shuffled(using: &rng))
        }
        for ids in cases {
            var packed = ids
            let data = ChangeLog.pack(&packed)
            #expect(ChangeLog.unpack(data) == ids.sorted(), "seed \(rng.seed): \(ids.prefix(20))")
        }
        #expect(ChangeLog.pack(&cases[6]).count <= 8, "one run of 100,000 ids is a few bytes")

        // A commit's entry: its sections, each kind of change of each entity, and back.
        var changes = StorageChanges()
        changes.inserted = Set((1...50_000).map { StorageObjectID(entityName: "Order", rowID: $0) }
                               + [3, 9, 4].map { StorageObjectID(entityName: "OrderItem", rowID: $0) })
        changes.updated = [StorageObjectID(entityName: "Customer", rowID: 7), StorageObjectID(entityName: "\u{E9}t\u{E9}", rowID: -2)]
        changes.deleted = [StorageObjectID(entityName: "Order", rowID: Int64.max)]
        changes.resetEntities = ["Counter"]
        let entry = ChangeLog.encode(ChangeLog.sections(of: changes))
        #expect(entry.count < 100, "\(entry.count) bytes")
        let decoded = ChangeLog.commits([ChangeLog.Entry(sequence: 1, writer: 2, changes: entry)])?.first?.changes
        #expect(decoded == changes, "\(String(describing: decoded))")

        // Bytes ManagedStorage did not write decode to nothing (never to a crash or a huge array).
        var tooLong = [UInt8](repeating: 0xff, count: 10)
        tooLong.append(0x01)
        for bytes: [UInt8] in [[0x80], [0x02], [0x02, 0x00, 0x01], [0x02, 0x00, 0x01, 0x00], tooLong,
                               [0x00, 0xff, 0xff, 0xff, 0xff, 0x7f], [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x05]] {
            #expect(ChangeLog.unpack(Data(bytes)) == nil, "\(bytes)")
        }
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 1...12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // As an entry: sections or nothing, never a crash.
            if let sections = ChangeLog.decode(Data([ChangeLog.format] + bytes)) {
                #expect(ChangeLog.decode(ChangeLog.encode(sections)) == sections, "seed \(rng.seed): \(bytes)")
            }
            if let ids = ChangeLog.unpack(Data(bytes), limit: 1 << 16) {
                #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 } && ids.count <= 1 << 16, "seed \(rng.seed): \(bytes)")
                var again = ids
                #expect(ChangeLog.unpack(ChangeLog.pack(&again)) == ids)
            }
        }
    }
}

/// Every change a manager publishes from now on, collected by a task of its own.
final class ChangeRecorder: Sendable {
    private final class Received: Sendable {
        let changes = Mutex<[StorageChanges]>([])
    }

    private let received = Received()
    private let task: Task<Void, Never>

    init(_ manager: SQLiteStorageManager) {
        let received = self.received
        let stream = manager.changes()
        task = Task.detached { for await change in stream { received.changes.withLock { $0.append(change) } } }
    }

    deinit { task.cancel() }

    var changes: [StorageChanges] { received.changes.withLock { $0 } }
    var count: Int { received.changes.withLock { $0.count } }

    /// Waits until `count` changes arrived; whether they did.
    func wait(for count: Int) async -> Bool {
        await waitUntil(timeout: .seconds(120)) { self.count >= count }
    }
}

/// An entity that tries to take the change log's name.
@StorageEntity(name: "managedstorage_changes")
final class ChangeLogImpostor {
    var name: String
}
