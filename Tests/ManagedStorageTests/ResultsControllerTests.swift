import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// `ResultsController`: WooCommerce's surface, live changes from this process and others, and the
/// randomized check that every reported batch turns the previous results into a fresh fetch.
@MainActor
@Suite struct ResultsControllerTests {
    nonisolated static let statuses = ["pending", "processing", "completed", "\u{E9}", "e\u{301}", "Zed"]

    /// What a fresh fetch gives for the controller's query, computed through `read` and SQL only.
    static func freshFetch(_ manager: SQLiteStorageManager, sectioned: Bool, predicate: Predicate<Order>?,
                           sort: [SortDescriptor<Order>], limit: Int?) throws -> TableSnapshot {
        var order = sort
        if sectioned && order.first?.keyPath != \Order.status {
            order.insert(SortDescriptor(\Order.status), at: 0)
        }
        let orders = try manager.read { storage in
            storage.allObjects(ofType: Order.self, matching: predicate, sortedBy: order).map { ($0.status, $0.orderID) }
        }
        let limited = limit.map { Array(orders.prefix($0)) } ?? orders
        guard sectioned else { return TableSnapshot(sections: [("", limited.map(\.1))]) }
        var sections: [(name: String, ids: [Int64])] = []
        for (status, id) in limited {
            if let last = sections.last, Array(last.name.utf8) == Array(status.utf8) { sections[sections.count - 1].ids.append(id) } else { sections.append((status, [id])) }
        }
        return TableSnapshot(sections: sections)
    }

    @Test(arguments: [(true, nil), (false, nil), (true, 7)] as [(Bool, Int?)])
    func randomChangesApplyToThePreviousResultsExactly(sectioned: Bool, limit: Int?) async throws {
        let store = try TestStore { $0.durability = .normal }
        let manager = store.manager
        var rng = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        print("ResultsControllerTests: sectioned \(sectioned), limit \(limit.map(String.init) ?? "none"), seed \(rng.seed)")
        let predicates: [Predicate<Order>?] = [nil, #Predicate { $0.total > 20 }, #Predicate { $0.status != "completed" }]
        let sorts: [[SortDescriptor<Order>]] = [
            [SortDescriptor(\.total)], [SortDescriptor(\.dateCreated, order: .reverse)],
            [SortDescriptor(\.status, order: .reverse), SortDescriptor(\.total)],
            [SortDescriptor(\.customerNote), SortDescriptor(\.total, order: .reverse)],
        ]
        var predicateIndex = 0, sortIndex = 0
        var nextID: Int64 = 1
        try await manager.write { storage in
            for id in 1...12 { insertOrder(storage, id: Int64(id), status: Self.statuses[id % Self.statuses.count], total: Double(id % 5) * 10) }
        }
        nextID = 13

        let controller = ResultsController<Order>(viewStorage: manager.viewStorage,
                                                  sectionNameKeyPath: sectioned ? "status" : nil,
                                                  matching: predicates[0], fetchLimit: limit, sortedBy: sorts[0])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        var model = TableSnapshot(controller)
        var expected = try Self.freshFetch(manager, sectioned: sectioned, predicate: predicates[0], sort: sorts[0], limit: limit)
        #expect(model == expected)
        var kinds: [String: Int] = [:]

        for step in 0..<120 {
            let roll = Int.random(in: 0..<100, using: &rng)
            let existing = try manager.read { storage in storage.allObjects(ofType: Order.self).map(\.orderID) }
            func pick(_ count: Int) -> [Int64] { Array(existing.shuffled(using: &rng).prefix(count)) }
            let kind: String
            switch roll {
            case 0..<20:
                kind = "insert"
                let ids = (0..<Int.random(in: 1...3, using: &rng)).map { _ in defer { nextID += 1 }; return nextID }
                let statuses = ids.map { _ in Self.statuses.randomElement(using: &rng)! }
                let totals = ids.map { _ in Double(Int.random(in: 0...5, using: &rng) * 10) }
                try await manager.write { storage in
                    for (offset, id) in ids.enumerated() { insertOrder(storage, id: id, status: statuses[offset], total: totals[offset]) }
                }
            case 20..<32:
                kind = "delete"
                let victims = pick(Int.random(in: 1...2, using: &rng))
                try await manager.write { storage in
                    for order in storage.allObjects(ofType: Order.self, matching: #Predicate { victims.contains($0.orderID) }) {
                        storage.deleteObject(order)
                    }
                }
            case 32..<50:
                kind = "status"
                let targets = pick(Int.random(in: 1...3, using: &rng))
                let statuses = targets.map { _ in Self.statuses.randomElement(using: &rng)! }
                try await manager.write { storage in
                    for (offset, id) in targets.enumerated() {
                        storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id })?.status = statuses[offset]
                    }
                }
            case 50..<65:
                kind = "total"
                let targets = pick(Int.random(in: 1...3, using: &rng))
                let totals = targets.map { _ in Double(Int.random(in: 0...5, using: &rng) * 10) }
                try await manager.write { storage in
                    for (offset, id) in targets.enumerated() {
                        storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id })?.total = totals[offset]
                    }
                }
            case 65..<72:
                kind = "note"
                let targets = pick(2)
                let note = ["a", "b", nil].randomElement(using: &rng)!
                try await manager.write { storage in
                    for id in targets {
                        storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id })?.customerNote = note
                    }
                }
            case 72..<77:
                kind = "item"
                let targets = pick(1)
                try await manager.write { storage in
                    for id in targets {
                        let item = storage.insertNewObject(ofType: OrderItem.self)
                        item.name = "added"
                        item.order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id })
                    }
                }
            case 77..<85:
                kind = "mixed"
                let victims = pick(1), movers = pick(2)
                let id = nextID
                nextID += 1
                let status = Self.statuses.randomElement(using: &rng)!
                let total = Double(Int.random(in: 0...5, using: &rng) * 10)
                try await manager.write { storage in
                    insertOrder(storage, id: id, status: status, total: total)
                    for order in storage.allObjects(ofType: Order.self, matching: #Predicate { movers.contains($0.orderID) }) {
                        order.total += 10
                        order.status = status
                    }
                    for order in storage.allObjects(ofType: Order.self, matching: #Predicate { victims.contains($0.orderID) }) {
                        storage.deleteObject(order)
                    }
                }
            case 85..<90:
                kind = "predicate"
                predicateIndex = Int.random(in: 0..<predicates.count, using: &rng)
                controller.predicate = predicates[predicateIndex]
            case 90..<95:
                kind = "sort"
                sortIndex = Int.random(in: 0..<sorts.count, using: &rng)
                controller.sortDescriptors = sorts[sortIndex]
            default:
                kind = "other program"
                let target = pick(1).first ?? 0
                let status = Self.statuses.randomElement(using: &rng)!
                try rawSQL(manager.fileURL.path, "UPDATE \"Order\" SET status = '\(status)', total = total + 10 WHERE orderID = \(target)")
                manager.checkForOtherProcessesCommits()
            }
            kinds[kind, default: 0] += 1
            #expect(await settle(controller, manager), "step \(step) (\(kind)): the controller did not catch up")
            expected = try Self.freshFetch(manager, sectioned: sectioned, predicate: predicates[predicateIndex],
                                           sort: sorts[sortIndex], limit: limit)
            for batch in recorder.take() {
                switch applyBatch(batch, to: model) {
                case .success(let next): model = next
                case .failure(let violation):
                    Issue.record("step \(step) (\(kind)), seed \(rng.seed): \(violation); before \(model), after \(expected)")
                    model = expected
                }
            }
            #expect(model == expected, "step \(step) (\(kind)), seed \(rng.seed): the batches give \(model), a fresh fetch \(expected)")
            #expect(TableSnapshot(controller) == expected, "step \(step) (\(kind)), seed \(rng.seed)")
            model = expected
        }
        #expect(recorder.misplaced.isEmpty, "\(recorder.misplaced)")
        print("ResultsControllerTests: steps by kind \(kinds.sorted { $0.key < $1.key })")
    }

    @Test(arguments: StoreKind.allCases) func wooCommerceSurface(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await store.manager.write { storage in
            for id in 1...6 { insertOrder(storage, id: Int64(id), status: id <= 2 ? "completed" : "processing", total: Double(id)) }
        }
        let controller = ResultsController<Order>(storageManager: store.manager, sectionNameKeyPath: "status",
                                                  matching: #Predicate { $0.total > 1 }, sortedBy: [SortDescriptor(\.orderID)])
        #expect(controller.isEmpty, "nothing before performFetch")
        try controller.performFetch()
        #expect(controller.numberOfObjects == 5)
        #expect(controller.sections.map(\.name) == ["completed", "processing"])
        #expect(controller.sections.map(\.numberOfObjects) == [1, 4])
        #expect(controller.sections.map(\.count) == [1, 4])
        #expect(controller.fetchedObjects.map(\.orderID) == [2, 3, 4, 5, 6])
        #expect(controller.object(at: IndexPath(row: 1, section: 1)).orderID == 4)
        #expect(controller.safeObject(at: IndexPath(row: 4, section: 1)) == nil)
        #expect(controller.safeObject(at: IndexPath(row: 0, section: 2)) == nil)
        #expect(controller.objectIndex(from: IndexPath(row: 2, section: 1)) == 3)
        #expect(controller.indexPath(forObjectMatching: { $0.orderID == 6 }) == IndexPath(row: 3, section: 1))
        #expect(controller.indexPath(forObjectMatching: { $0.orderID == 1 }) == nil)

        var types: [ResultsController<Order>.ChangeType] = []
        controller.onDidChangeObject = { _, _, type, _ in types.append(type) }
        controller.predicate = nil
        #expect(controller.fetchedObjects.map(\.orderID) == [1, 2, 3, 4, 5, 6])
        #expect(types == [.insert])
        controller.sortDescriptors = [SortDescriptor(\.orderID, order: .reverse)]
        #expect(controller.fetchedObjects.map(\.orderID) == [2, 1, 6, 5, 4, 3])

        let limited = ResultsController<Order>(viewStorage: store.manager.viewStorage, fetchLimit: 2,
                                               sortedBy: [SortDescriptor(\.total, order: .reverse)])
        try limited.performFetch()
        #expect(limited.fetchedObjects.map(\.orderID) == [6, 5])
        #expect(limited.sections.map(\.name) == [""])
        try await store.manager.write { storage in _ = insertOrder(storage, id: 7, total: 100) }
        #expect(await settle(limited, store.manager))
        #expect(limited.fetchedObjects.map(\.orderID) == [7, 6])
    }

    @Test func anUnsupportedQueryIsATypedErrorFromPerformFetch() throws {
        let store = try TestStore()
        let controller = ResultsController<Order>(viewStorage: store.manager.viewStorage, sectionNameKeyPath: "items",
                                                  sortedBy: [])
        #expect(throws: StorageError.self) { try controller.performFetch() }
        let sorted = ResultsController<Order>(viewStorage: store.manager.viewStorage, sectionNameKeyPath: "nope", sortedBy: [])
        do {
            try sorted.performFetch()
            Issue.record("a section key that is no column was accepted")
        } catch {
            #expect("\(error)".contains("nope"))
        }
    }

    @Test(arguments: StoreKind.allCases) func resetReachesTheController(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await store.manager.write { storage in _ = insertOrder(storage, id: 1, items: 2) }
        let controller = ResultsController<Order>(viewStorage: store.manager.viewStorage, sortedBy: [])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        #expect(controller.numberOfObjects == 1)
        store.manager.reset()
        #expect(await settle(controller, store.manager))
        #expect(recorder.resets == 1)
        #expect(controller.isEmpty)
        #expect(recorder.take().isEmpty, "a reset is reported as a reset, not as deletions")
    }

    @Test(arguments: StoreKind.allCases) func addingAnItemUpdatesItsOrder(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await store.manager.write { storage in _ = insertOrder(storage, id: 1, items: 1) }
        let controller = ResultsController<Order>(viewStorage: store.manager.viewStorage, sortedBy: [])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        try await store.manager.write { storage in
            let item = storage.insertNewObject(ofType: OrderItem.self)
            item.name = "second"
            item.order = storage.firstObject(ofType: Order.self)
        }
        #expect(await settle(controller, store.manager))
        let batches = recorder.take()
        #expect(batches.count == 1)
        #expect(batches.first?.objects.map(\.type) == [.update])
        #expect(controller.fetchedObjects.first?.items.count == 2)
    }

    @Test func anotherProcessesCommitReachesTheController() async throws {
        let store = try TestStore { $0.otherProcessPollInterval = .milliseconds(20) }
        try await store.manager.write { storage in _ = insertOrder(storage, id: 1) }
        let controller = ResultsController<Order>(viewStorage: store.manager.viewStorage, sortedBy: [SortDescriptor(\.orderID)])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        let started = ContinuousClock.now
        let child = try ChildProcess.start(try ChildProcess.builtProgram("managed-probe"), ["insert", store.folder.url.path, "77", "3"])
        _ = try await child.waitForLine(deadline: .now + .seconds(180)) { @Sendable line in line == "inserted 77" }
        let deadline = ContinuousClock.now + .seconds(120)
        while controller.numberOfObjects < 2 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        print("ResultsControllerTests: another process's insert reached the controller \(ContinuousClock.now - started) after the child started")
        #expect(controller.fetchedObjects.map(\.orderID) == [1, 77])
        let objects = recorder.take().flatMap(\.objects)
        #expect(objects.map(\.type) == [.insert])
        #expect(objects.first?.new == IndexPath(row: 1, section: 0))
    }

    @Test(arguments: StoreKind.allCases) func snapshotsFollowCommitsOffTheMainActor(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await store.manager.write { storage in _ = insertOrder(storage, id: 1, status: "completed") }
        let manager = store.manager
        let snapshots = Task.detached {
            var seen: [ResultsSnapshot<Order.ReadOnly>] = []
            for try await snapshot in manager.results(Order.self, sectionNameKeyPath: "status", sortedBy: [SortDescriptor(\.orderID)]) {
                seen.append(snapshot)
                if seen.count == 1 {
                    try await manager.write { storage in _ = insertOrder(storage, id: 2, status: "pending") }
                }
                if seen.count == 3 { break }
                if seen.count == 2 {
                    try await manager.write { storage in
                        storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 1 })?.status = "pending"
                    }
                }
            }
            return seen
        }
        let seen = try await snapshots.value
        #expect(seen.count == 3)
        #expect(seen[0].sections.map(\.name) == ["completed"])
        #expect(seen[0].changes.isEmpty)
        #expect(seen[1].sections.map(\.name) == ["completed", "pending"])
        #expect(seen[1].changes.insertedSections == [1])
        #expect(seen[1].changes.inserted == [IndexPath(row: 0, section: 1)])
        #expect(seen[2].sections.map(\.name) == ["pending"])
        #expect(seen[2].fetchedObjects.map(\.orderID) == [1, 2])
        #expect(seen[2].fetchedObjects.map(\.status) == ["pending", "pending"])
        #expect(seen[2].changes.deletedSections == [0])
    }

    @Test func sqliteOrderMatchesSQLiteForMixedValues() throws {
        let values: [StorageValue] = [.null, .integer(-3), .real(-2.5), .integer(2), .real(2.0), .real(2.5), .integer(Int64.max),
                                      .text(""), .text("Z"), .text("a"), .text("\u{E9}"), .text("e\u{301}"), .blob(Data()), .blob(Data([0]))]
        for a in values {
            for b in values {
                let expected = try sqliteCompare(a, b)
                #expect(a.sqliteOrder(b).signum() == expected, "\(a) vs \(b)")
            }
        }
    }
}

/// SQLite's own order of two values: -1, 0 or 1.
func sqliteCompare(_ a: StorageValue, _ b: StorageValue) throws -> Int {
    func database(_ value: StorageValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let v): v.databaseValue
        case .blob(let v): v.databaseValue
        }
    }
    let queue = try DatabaseQueue()
    return try queue.read { db in
        // ORDER BY puts NULL first and compares storage classes as SQLite does.
        let rows = try Int.fetchAll(db, sql: "SELECT k FROM (SELECT ? AS v, 0 AS k UNION ALL SELECT ?, 1) ORDER BY v, k",
                                    arguments: [database(a), database(b)])
        let same = try Bool.fetchOne(db, sql: "SELECT ? IS ?", arguments: [database(a), database(b)]) ?? false
        if same { return 0 }
        return rows == [0, 1] ? -1 : 1
    }
}
