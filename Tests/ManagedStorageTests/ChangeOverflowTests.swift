import Foundation
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// Commits arriving faster than a stalled consumer reads them: no change may be lost past a stream's
/// buffer. The main actor is kept busy by committing from it synchronously (`writeAndWait`), so the
/// controller's listener cannot run until the burst ends.
@MainActor
@Suite struct ChangeOverflowTests {
    /// More than any change buffer holds (the hub keeps 1,000 per stream).
    nonisolated static let burstPastTheBuffer = 1_100

    @Test func aBurstPastTheBufferWhileTheMainActorIsBusyReachesTheController() async throws {
        let store = try TestStore { $0.durability = .normal }
        let manager = store.manager
        let controller = ResultsController<Order>(viewStorage: manager.viewStorage, sortedBy: [SortDescriptor(\.orderID)])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        var model = TableSnapshot(controller)
        for id in 1...Int64(Self.burstPastTheBuffer) {
            try manager.writeAndWait { storage in _ = insertOrder(storage, id: id) }
        }
        #expect(await settle(controller, manager, timeout: .seconds(300)))
        let expected = try ResultsControllerTests.freshFetch(manager, sectioned: false, predicate: nil,
                                                             sort: [SortDescriptor(\.orderID)], limit: nil)
        #expect(controller.numberOfObjects == Self.burstPastTheBuffer,
                "the controller has \(controller.numberOfObjects) orders, a fresh fetch \(Self.burstPastTheBuffer)")
        #expect(TableSnapshot(controller) == expected)
        // The callbacks report every row too: applied to the empty table they give the fresh fetch.
        for batch in recorder.take() {
            guard case .success(let next) = applyBatch(batch, to: model) else {
                Issue.record("a batch of \(batch.objects.count) object changes breaks the table-view rules")
                break
            }
            model = next
        }
        #expect(model == expected, "the callbacks reported \(model.sections.map(\.ids.count)) rows")
    }

    @Test func aStreamThatFellBehindGetsAnOverflowedChange() async throws {
        let store = try TestStore { $0.durability = .normal }
        let manager = store.manager
        let stream = manager.changes()
        for id in 1...Int64(Self.burstPastTheBuffer) {
            try manager.writeAndWait { storage in _ = insertOrder(storage, id: id) }
        }
        manager.reset()   // a last change that is easy to tell
        var received: [StorageChanges] = []
        for await change in stream {
            received.append(change)
            if !change.resetEntities.isEmpty { break }
        }
        let overflows = received.filter(\.overflowed)
        #expect(overflows.count == 1, "\(received.count) changes, \(overflows.count) overflowed")
        #expect(received.first?.overflowed == true && received.first?.inserted.isEmpty == true && received.first?.isEmpty == false)
        // The first 1,001 changes are one; the rest arrive as they were.
        #expect(received.count == Self.burstPastTheBuffer + 1 - StorageChanges.streamBufferCapacity)
        #expect(received.dropFirst().dropLast().allSatisfy { $0.inserted.count == 1 })
    }

    @Test func burstsPastTheBufferLeaveTheControllerEqualToAFreshFetch() async throws {
        let store = try TestStore { $0.durability = .normal }
        let manager = store.manager
        var rng = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        print("ChangeOverflowTests: seed \(rng.seed)")
        let statuses = ResultsControllerTests.statuses
        let predicate: Predicate<Order> = #Predicate { $0.total > 10 }
        let sort = [SortDescriptor(\Order.total), SortDescriptor(\Order.orderID)]
        let controller = ResultsController<Order>(viewStorage: manager.viewStorage, sectionNameKeyPath: "status",
                                                  matching: predicate, sortedBy: sort)
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        let raw = manager.changes()
        var model = TableSnapshot(controller)
        var nextID: Int64 = 1
        var live: [Int64] = []
        for burst in 0..<3 {
            let size = Int.random(in: (StorageChanges.streamBufferCapacity + 1)...(StorageChanges.streamBufferCapacity + 400), using: &rng)
            for _ in 0..<size {
                let roll = Int.random(in: 0..<100, using: &rng)
                if roll < 45 || live.isEmpty {
                    let id = nextID
                    nextID += 1
                    let status = statuses.randomElement(using: &rng)!
                    let total = Double(Int.random(in: 0...5, using: &rng) * 10)
                    try manager.writeAndWait { storage in _ = insertOrder(storage, id: id, status: status, total: total) }
                    live.append(id)
                } else if roll < 65 {
                    let id = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
                    try manager.writeAndWait { storage in
                        for order in storage.allObjects(ofType: Order.self, matching: #Predicate { $0.orderID == id }) {
                            storage.deleteObject(order)
                        }
                    }
                } else {
                    let id = live.randomElement(using: &rng)!
                    let status = statuses.randomElement(using: &rng)!
                    let total = Double(Int.random(in: 0...5, using: &rng) * 10)
                    try manager.writeAndWait { storage in
                        let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id })
                        order?.status = status
                        order?.total = total
                    }
                }
            }
            #expect(await settle(controller, manager, timeout: .seconds(300)), "burst \(burst), seed \(rng.seed): the controller did not catch up")
            let expected = try ResultsControllerTests.freshFetch(manager, sectioned: true, predicate: predicate, sort: sort, limit: nil)
            #expect(TableSnapshot(controller) == expected, "burst \(burst) of \(size) commits, seed \(rng.seed)")
            for batch in recorder.take() {
                switch applyBatch(batch, to: model) {
                case .success(let next): model = next
                case .failure(let violation):
                    Issue.record("burst \(burst), seed \(rng.seed): \(violation.message)")
                    model = expected
                }
            }
            #expect(model == expected, "burst \(burst), seed \(rng.seed): the callbacks give \(model.sections.map(\.ids.count)) rows per section")
            model = expected
        }
        #expect(recorder.misplaced.isEmpty, "\(recorder.misplaced)")
        // The unread stream learned of every burst's overflow (folded into one, as it was never read).
        var iterator = raw.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.overflowed == true, "seed \(rng.seed)")
    }
}
