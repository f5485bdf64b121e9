@testable import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

@Suite("sync round trips", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct RoundTripTests {
    @Test("a document made on one replica reaches another, and its edits and deletion follow")
    func twoReplicas() async throws {
        let fixture = try SyncFixture("roundtrip")

        let a = try fixture.store()
        let b = try fixture.store()
        let item = Item(identifier: "one", body: ["name": "first", "count": 1])
        try a.save(item)
        let first = try await fixture.sync(a).run()
        #expect(first.pushedRevisions == 1)
        let second = try await fixture.sync(b).run()
        #expect(second.pulledRevisions == 1)
        let copy = try #require(try b.load(Item.self, "one"))
        #expect(copy.body == ["name": "first", "count": 1])
        copy.body = ["name": "second", "count": 2]
        try b.save(copy)
        try await fixture.sync(b).run()
        try await fixture.sync(a).run()
        #expect(try a.snapshot("one")?.body == ["name": "second", "count": 2])
        try a.delete(try #require(try a.refresh(item)))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        // The identity map keeps the instance b holds; a refresh reads the replicated deletion.
        #expect(try b.refresh(copy) == nil)
        #expect(try b.snapshot("one") == nil)
        #expect(try a.winners() == b.winners())
        await fixture.dropSchema()
    }
}
