import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing

/// WooCommerce's `Storage` usage, ported call for call: `performAndSave`, `viewStorage` reads,
/// `StorageType`'s methods, relationships and delete rules; each on a file and on an in-memory store.
@Suite struct WooCommerceUsageTests {
    @Test(arguments: StoreKind.allCases) func insertThenLoadByObjectIDInAnotherOperation(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let copy = try await store.perform { storage in
            let order = insertOrder(storage, id: 7, items: 2)
            order.customerNote = "leave at the door"
            return order.toReadOnly()
        }.get()
        #expect(!copy.objectID.isTemporary)
        #expect(copy.orderID == 7 && copy.customerNote == "leave at the door")
        #expect(copy.items.map(\.name) == ["7-0", "7-1"])
        #expect(copy.items.allSatisfy { $0.order == copy.objectID })

        let loaded = try await store.perform { storage in
            storage.loadObject(ofType: Order.self, with: copy.objectID)?.toReadOnly()
        }.get()
        #expect(loaded == copy)
        let wrongEntity = StorageObjectID(entityName: "OrderItem", rowID: copy.objectID.rowID)
        let none = try await store.perform { storage in storage.loadObject(ofType: Order.self, with: wrongEntity) == nil }.get()
        #expect(none)
    }

    @Test(arguments: StoreKind.allCases) @MainActor func viewStorageSeesCommittedWritesAndOneInstancePerRow(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        await store.performVoid { storage in
            insertOrder(storage, id: 1)
            insertOrder(storage, id: 2, status: "completed")
        }
        let view = store.manager.viewStorage
        let all = view.allObjects(ofType: Order.self, matching: nil, sortedBy: nil)
        #expect(all.map(\.orderID) == [1, 2])
        let first = view.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 2 })
        #expect(first === all[1], "one instance per row")
        #expect(view.countObjects(ofType: Order.self) == 2)
        #expect(store.errors.isEmpty)
    }

    @Test(arguments: StoreKind.allCases) @MainActor func viewStorageAndSnapshotsFollowRelationships(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        await store.performVoid { storage in
            let customer = storage.insertNewObject(ofType: Customer.self)
            customer.name = "Ada"
            insertOrder(storage, id: 1, items: 3).customer = customer
        }
        let order = try #require(store.manager.viewStorage.firstObject(ofType: Order.self))
        #expect(order.items.map(\.name) == ["1-0", "1-1", "1-2"])
        #expect(order.items.first?.order === order, "the inverse gives the same instance")
        #expect(order.customer?.name == "Ada")
        #expect(order.customer?.orders.map(\.orderID) == [1])
        let fromSnapshot = try store.manager.read { storage in
            storage.allObjects(ofType: Order.self).map { "\($0.items.count) \($0.customer?.name ?? "-")" }
        }
        #expect(fromSnapshot == ["3 Ada"])
        #expect(store.errors.isEmpty, "\(store.errors)")
    }

    @Test(arguments: StoreKind.allCases) func predicatesAndSorting(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let statuses = ["processing", "completed", "on-hold", "processing", "cancelled", "processing"]
        _ = try await store.perform { storage in
            for (offset, status) in statuses.enumerated() {
                let order = insertOrder(storage, id: Int64(offset + 1), status: status, total: Double(10 * (6 - offset)))
                if offset % 2 == 0 { order.customerNote = "note \(offset)" }
            }
        }.get()
        let results = try await store.perform { storage -> [String: [Int64]] in
            func ids(_ predicate: Predicate<Order>?, _ sort: [SortDescriptor<Order>]? = nil) -> [Int64] {
                storage.allObjects(ofType: Order.self, matching: predicate, sortedBy: sort).map(\.orderID)
            }
            let wanted = ["on-hold", "cancelled"]
            let cutoff = Date(timeIntervalSince1970: 1_700_000_003)
            return [
                "processing": ids(#Predicate { $0.status == "processing" }),
                "not processing, by total": ids(#Predicate { $0.status != "processing" }, [SortDescriptor(\.total)]),
                "total > 20 && processing": ids(#Predicate { $0.total > 20 && $0.status == "processing" }),
                "total <= 20 || completed": ids(#Predicate { $0.total <= 20 || $0.status == "completed" }),
                "no note": ids(#Predicate { $0.customerNote == nil }),
                "has note": ids(#Predicate { $0.customerNote != nil }),
                "in list": ids(#Predicate { wanted.contains($0.status) }),
                "contains 'ess'": ids(#Predicate { $0.status.contains("ess") }),
                "starts with 'c'": ids(#Predicate { $0.status.starts(with: "c") }),
                "not processing (negation)": ids(#Predicate { !($0.status == "processing") }),
                "date before cutoff": ids(#Predicate { $0.dateCreated < cutoff }),
                "arithmetic": ids(#Predicate { $0.total * 2 >= 80 }),
                "by status then id descending": ids(nil, [SortDescriptor(\.status), SortDescriptor(\.orderID, order: .reverse)]),
                "count processing": [Int64(storage.countObjects(ofType: Order.self, matching: #Predicate { $0.status == "processing" }))],
            ]
        }.get()
        #expect(results["processing"] == [1, 4, 6])
        #expect(results["not processing, by total"] == [5, 3, 2])
        #expect(results["total > 20 && processing"] == [1, 4])
        #expect(results["total <= 20 || completed"] == [2, 5, 6])
        #expect(results["no note"] == [2, 4, 6])
        #expect(results["has note"] == [1, 3, 5])
        #expect(results["in list"] == [3, 5])
        #expect(results["contains 'ess'"] == [1, 4, 6])
        #expect(results["starts with 'c'"] == [2, 5])
        #expect(results["not processing (negation)"] == [2, 3, 5])
        #expect(results["date before cutoff"] == [1, 2])
        #expect(results["arithmetic"] == [1, 2, 3])
        #expect(results["by status then id descending"] == [5, 2, 3, 6, 4, 1])
        #expect(results["count processing"] == [3])
    }

    @Test(arguments: StoreKind.allCases) func unsupportedPredicateIsATypedErrorNamingThePart(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let result = await store.perform { storage in
            storage.allObjects(ofType: Order.self, matching: #Predicate { $0.customerNote?.isEmpty == true }, sortedBy: nil).count
        }
        guard case .failure(let error as StorageError) = result, case .unsupportedQuery(let what) = error else {
            Issue.record("expected unsupportedQuery, got \(result)")
            return
        }
        #expect(what.contains("PredicateExpressions."), "names the expression: \(what)")
    }

    @Test(arguments: StoreKind.allCases) func countDeleteAllAndFirstObject(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let counts = try await store.perform { storage -> [Int] in
            for id in 1...5 { insertOrder(storage, id: Int64(id), items: 2) }
            let before = [storage.countObjects(ofType: Order.self), storage.countObjects(ofType: OrderItem.self)]
            storage.deleteAllObjects(ofType: Order.self)
            return before + [storage.countObjects(ofType: Order.self), storage.countObjects(ofType: OrderItem.self),
                             storage.firstObject(ofType: Order.self) == nil ? 0 : 1]
        }.get()
        #expect(counts == [5, 10, 0, 0, 0], "delete-all cascades to the items")
    }

    @Test(arguments: StoreKind.allCases) func saveIfNeededWritesOnlyWhatChangedAndInsideTheTransaction(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let id = try await store.perform { storage in insertOrder(storage, id: 1).toReadOnly().objectID }.get()
        let changes = store.manager.changes()
        let result = try await store.perform { storage -> Bool in
            let order = storage.loadObject(ofType: Order.self, with: id)!
            order.status = "completed"
            let hadChanges = order.hasChanges
            storage.saveIfNeeded()
            return hadChanges && !order.hasChanges
        }.get()
        #expect(result)
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.updated == [id] && change?.inserted.isEmpty == true)
    }

    @Test(arguments: StoreKind.allCases) func toManyWithCascadeAndInverse(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let summary = try await store.perform { storage -> [String] in
            let order = insertOrder(storage, id: 1, items: 3)
            let before = order.items.map(\.name)
            // The inverse: setting the item's order moves it between orders' items.
            let other = insertOrder(storage, id: 2)
            order.items[0].order = other
            let moved = [order.items.count, other.items.count]
            // Replacing the to-many: removed items stop pointing at the order.
            let kept = order.items[0]
            let dropped = order.items[1]
            order.items = [kept]
            storage.deleteObject(order)
            return before + ["\(moved)", "\(dropped.order == nil)", "\(storage.countObjects(ofType: OrderItem.self))",
                             "\(kept.isDeleted)", "\(storage.countObjects(ofType: Order.self))"]
        }.get()
        #expect(summary == ["1-0", "1-1", "1-2", "[2, 1]", "true", "2", "true", "1"],
                "cascade deletes the order's item; the moved and dropped items stay")
    }

    @Test(arguments: StoreKind.allCases) func nullifyKeepsTheRelatedObjects(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let (notes, orphaned) = try await store.perform { storage -> (Int, Bool) in
            let order = insertOrder(storage, id: 1)
            for text in ["a", "b"] {
                let note = storage.insertNewObject(ofType: OrderNote.self)
                note.text = text
                note.order = order
            }
            storage.saveIfNeeded()
            storage.deleteObject(order)
            let remaining = storage.allObjects(ofType: OrderNote.self, matching: nil, sortedBy: nil)
            return (remaining.count, remaining.allSatisfy { $0.order == nil })
        }.get()
        #expect(notes == 2 && orphaned)
    }

    @Test(arguments: StoreKind.allCases) func denyRefusesTheDeleteAndRollsTheOperationBack(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        _ = try await store.perform { storage in
            let customer = storage.insertNewObject(ofType: Customer.self)
            customer.name = "Ada"
            insertOrder(storage, id: 1).customer = customer
        }.get()
        let denied = await store.perform { storage in
            insertOrder(storage, id: 2)
            storage.deleteObject(storage.firstObject(ofType: Customer.self)!)
        }
        guard case .failure(let error as StorageError) = denied else { Issue.record("expected a failure"); return }
        #expect(error == .deleteDenied(entity: "Customer", relationship: "orders"))
        let counts = try await store.perform { storage in
            [storage.countObjects(ofType: Customer.self), storage.countObjects(ofType: Order.self)]
        }.get()
        #expect(counts == [1, 1], "the denied delete and the insert before it were rolled back")
        // Without orders the customer can go.
        _ = try await store.perform { storage in
            storage.deleteObject(storage.firstObject(ofType: Order.self)!)
            storage.deleteObject(storage.firstObject(ofType: Customer.self)!)
        }.get()
    }

    @Test(arguments: StoreKind.allCases) func oneToOneInversesStayInStep(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let result = try await store.perform { storage -> [String] in
            let ada = storage.insertNewObject(ofType: Customer.self)
            ada.name = "Ada"
            let bob = storage.insertNewObject(ofType: Customer.self)
            bob.name = "Bob"
            let profile = storage.insertNewObject(ofType: CustomerProfile.self)
            profile.bio = "mathematician"
            ada.profile = profile
            let first = [profile.customer?.name ?? "nil"]
            // Moving the profile to Bob takes it from Ada.
            profile.customer = bob
            let second = [ada.profile == nil ? "nil" : "set", bob.profile === profile ? "bob" : "other"]
            storage.deleteObject(bob)
            return first + second + ["\(storage.countObjects(ofType: CustomerProfile.self))"]
        }.get()
        #expect(result == ["Ada", "nil", "bob", "0"], "cascade from Bob deletes the profile")
    }

    @Test(arguments: StoreKind.allCases) func anErrorInAnOperationRollsEverythingBack(_ kind: StoreKind) async throws {
        struct Refused: Error, Equatable {}
        let store = try TestStore(kind)
        let result = await store.perform { storage -> Int in
            insertOrder(storage, id: 1, items: 2)
            storage.saveIfNeeded()
            throw Refused()
        }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error is Refused, "the operation's own error reaches the completion")
        let count = try await store.perform { $0.countObjects(ofType: Order.self) + $0.countObjects(ofType: OrderItem.self) }.get()
        #expect(count == 0)
    }

    @Test(arguments: StoreKind.allCases) @MainActor func mutationThroughViewStorageWritesNothingAndIsReported(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        await store.performVoid { insertOrder($0, id: 1) }
        let view = store.manager.viewStorage
        let order = try #require(view.firstObject(ofType: Order.self))
        order.status = "hacked"
        let inserted = view.insertNewObject(ofType: Order.self)
        inserted.orderID = 99
        view.deleteObject(order)
        view.saveIfNeeded()
        #expect(order.status == "processing", "the set was refused")
        let statuses = try await store.perform { storage in storage.allObjects(ofType: Order.self).map(\.status) }.get()
        #expect(statuses == ["processing"])
        let operations = store.errors.compactMap { error -> String? in
            if case .readOnlyStorage(let operation) = error { return operation }
            return nil
        }
        #expect(operations.count == 3, "\(store.errors)")
    }

    @Test(arguments: StoreKind.allCases) func voidFormReportsItsErrorToTheHookAndTheStream(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let stream = store.manager.errors()
        await store.performVoid { storage in
            insertOrder(storage, id: 1)
            storage.deleteObject(storage.insertNewObject(ofType: Customer.self))
            let customer = storage.insertNewObject(ofType: Customer.self)
            insertOrder(storage, id: 2).customer = customer
            storage.deleteObject(customer)
        }
        var iterator = stream.makeAsyncIterator()
        let streamed = await iterator.next()
        #expect(streamed == .deleteDenied(entity: "Customer", relationship: "orders"))
        #expect(store.errors == [.deleteDenied(entity: "Customer", relationship: "orders")])
        let count = try await store.perform { $0.countObjects(ofType: Order.self) }.get()
        #expect(count == 0)
    }

    @Test func badStoredValueIsATypedErrorNotATrap() async throws {
        let store = try TestStore()
        await store.performVoid { insertOrder($0, id: 1) }
        // Another program wrote an integer where text belongs. The table is STRICT, so it first
        // rewrote the column's declaration to ANY.
        let sqlite = store.folder.url.appendingPathComponent("Store.sqlite").path
        try rawSQL(sqlite, """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, '"status" TEXT NOT NULL', '"status" ANY') WHERE name = 'Order';
            PRAGMA writable_schema = OFF;
            """)
        let reader = try DatabaseQueue(path: sqlite)
        let version = try await reader.read { try Int.fetchOne($0, sql: "PRAGMA schema_version") ?? 0 }
        try reader.close()
        try rawSQL(sqlite, "PRAGMA schema_version = \(version + 1)")
        try rawSQL(sqlite, "UPDATE \"Order\" SET status = 42")
        let result = await store.perform { storage in storage.allObjects(ofType: Order.self).count }
        guard case .failure(let error as StorageError) = result, case .badValue(let entity, let property, _, let found) = error else {
            Issue.record("expected badValue, got \(result)")
            return
        }
        #expect(entity == "Order" && property == "status" && found.contains("INTEGER 42"))
    }
}
