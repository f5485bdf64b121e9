import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Synchronization
import Testing
import TestSupport

/// A save committed while the conflict resolver runs. The invariant: the merge is written only on the
/// branches the resolver saw, so a committed save is never overwritten by a merge that did not see it.
@Suite("saves during conflict resolution")
struct ResolverRaceTests {
    @Test("the app saves the conflicted document while the resolver runs: the save survives, merged, and the resolver is asked again", arguments: SyncServerKind.available)
    func saveDuringResolver(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("resolverrace", on: server)
        let a = try fixture.store("a")
        let b = try fixture.store("b")
        try a.save(Item(identifier: "doc", body: ["base": true]))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        // Concurrent edits: a conflict once b pulls a's edit.
        let onA = try #require(try a.load(Item.self, "doc"))
        onA.body = ["base": true, "a": 1]
        try a.save(onA)
        let onB = try #require(try b.load(Item.self, "doc"))
        onB.body = ["base": true, "b": 2]
        try b.save(onB)
        try await fixture.sync(a).run()
        let calls = Mutex(0)
        let resolverSaw = Mutex<[JSON]>([])
        try await fixture.sync(b) { configuration in
            configuration.conflictResolver = { conflict in
                let call = calls.withLock { count in count += 1; return count }
                resolverSaw.withLock { $0.append(conflict.current) }
                if call == 1 {
                    // The app commits an edit of the current branch while the resolver works.
                    let item = try! b.refresh(try! b.load(Item.self, "doc")!)!
                    var body = item.body
                    if case .object(var fields) = body { fields["saved"] = true; body = .object(fields) }
                    item.body = body
                    try! b.save(item)
                }
                return .merge(BranchUnion.merge(current: conflict.current, others: conflict.others))
            }
        }.run()
        let body = try #require(try b.snapshot("doc")).body
        #expect(body["saved"] == true, "the save made while the resolver ran was overwritten: \(body)")
        #expect(body["a"] == 1 && body["b"] == 2)
        #expect(calls.withLock { $0 } == 2, "the resolver is asked again after the save")
        #expect(try b.branches(of: "doc").filter { !$0.deleted }.count == 1)
        try await fixture.sync(a).run()
        #expect(try a.snapshot("doc")?.body == body)
        await fixture.dropSchema()
    }
}
