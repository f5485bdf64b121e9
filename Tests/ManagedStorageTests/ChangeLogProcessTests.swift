import Foundation
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// The change log across real processes (`managed-probe`): a manager here follows another process's
/// commits object by object, and follows two processes writing at once to exactly a fresh fetch.
@MainActor
@Suite struct ChangeLogProcessTests {
    @Test func anotherProcessesCommitsArriveWithTheirObjects() async throws {
        let folder = try TemporaryFolder(prefix: "managed-changelog-process")
        let follower = try ChangeLogTests.open(folder.url)
        try await follower.write { storage in for id in 1...10 { insertOrder(storage, id: Int64(id), status: "b", total: Double(id)) } }
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sectionNameKeyPath: "status",
                                                  sortedBy: ChangeLogTests.sort)
        let callbacks = CallbackRecorder(controller)
        try controller.performFetch()
        var model = TableSnapshot(controller)
        let received = ChangeRecorder(follower)

        let child = try ChildProcess.start(try ChildProcess.builtProgram("managed-probe"), ["mutate", folder.url.path])
        let termination = try await child.waitForExit(deadline: .now + .seconds(300))
        let lines = child.outputLines
        #expect(termination == .exited(0), "\(lines)")
        func objects(_ prefix: String) -> Set<String> {
            Set(lines.first { $0.hasPrefix(prefix + " ") }?.split(separator: " ").dropFirst().map(String.init) ?? [])
        }
        let (inserted, updated, deleted, nullified) = (objects("inserted"), objects("updated"), objects("deleted"), objects("nullified"))
        #expect(inserted.count == 12 && updated.count == 2 && deleted.count == 3 && nullified.count == 1, "\(lines)")

        // Three commits, one poll: each arrives as itself, in order, naming its objects.
        #expect(await ChangeLogTests.poll(follower, controller))
        #expect(await received.wait(for: 3))
        let changes = received.changes
        func names(_ ids: Set<StorageObjectID>) -> Set<String> { Set(ids.map(\.description)) }
        #expect(changes.count == 3 && changes.allSatisfy { $0.fromAnotherProcess && $0.objectsAreKnown }, "\(changes)")
        if changes.count == 3 {
            #expect(names(changes[0].inserted) == inserted && changes[0].updated.isEmpty && changes[0].deleted.isEmpty, "\(changes[0])")
            #expect(changes[1].inserted.isEmpty && names(changes[1].updated) == updated && changes[1].deleted.isEmpty, "\(changes[1])")
            #expect(changes[2].inserted.isEmpty && names(changes[2].deleted) == deleted && names(changes[2].updated) == nullified,
                    "the delete, its cascade and the note set to nothing: \(changes[2])")
        }
        let expected = try ChangeLogTests.fresh(follower)
        for batch in callbacks.take() {
            switch applyBatch(batch, to: model) {
            case .success(let next): model = next
            case .failure(let violation): Issue.record("\(violation)")
            }
        }
        #expect(model == expected && TableSnapshot(controller) == expected, "batches \(model), controller \(TableSnapshot(controller)), fresh \(expected)")
        #expect(controller.refetchCount == 0, "applied object by object")
    }

    @Test func twoProcessesWritingAtOnceAreFollowedToAFreshFetch() async throws {
        var rng = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        print("ChangeLogProcessTests: two writers, seed \(rng.seed)")
        let seeds = [UInt64.random(in: 1...UInt64.max, using: &rng), UInt64.random(in: 1...UInt64.max, using: &rng)]
        let folder = try TemporaryFolder(prefix: "managed-changelog-churn")
        let follower = try ChangeLogTests.open(folder.url) { $0.otherProcessPollInterval = .milliseconds(5) }
        try await follower.write { storage in
            for id in 1...30 { insertOrder(storage, id: Int64(id), status: ["pending", "processing", "completed"][id % 3], total: Double(id), items: 1) }
        }
        let controller = ResultsController<Order>(viewStorage: follower.viewStorage, sectionNameKeyPath: "status",
                                                  sortedBy: ChangeLogTests.sort)
        let callbacks = CallbackRecorder(controller)
        try controller.performFetch()
        var model = TableSnapshot(controller)
        let received = ChangeRecorder(follower)

        // The follower's own poll (every 5 ms) runs while the two write; the main actor applies what it publishes.
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(300))
        let path = folder.url.path
        let outputs = try await Task.detached {
            try await faults.runTogether(seeds.map { ["churn", path, "\($0)", "150"] }).map(\.outputLines)
        }.value
        #expect(outputs.allSatisfy { $0.contains("churned 150") }, "seed \(rng.seed): \(outputs)")
        #expect(await ChangeLogTests.poll(follower, controller), "seed \(rng.seed)")

        let expected = try ChangeLogTests.fresh(follower)
        for batch in callbacks.take() {
            switch applyBatch(batch, to: model) {
            case .success(let next): model = next
            case .failure(let violation):
                Issue.record("seed \(rng.seed): \(violation)")
                model = TableSnapshot(controller)
            }
        }
        #expect(model == expected, "seed \(rng.seed): the batches give \(model), a fresh fetch \(expected)")
        #expect(TableSnapshot(controller) == expected, "seed \(rng.seed)")
        let changes = received.changes
        let known = changes.filter { $0.fromAnotherProcess && $0.objectsAreKnown }.count
        print("ChangeLogProcessTests: \(changes.count) changes delivered, \(known) with their objects, \(controller.refetchCount) refetches, seed \(rng.seed)")
        #expect(known > 0 && known * 2 > changes.count, "most commits arrive with their objects: \(known) of \(changes.count), seed \(rng.seed)")
    }
}
