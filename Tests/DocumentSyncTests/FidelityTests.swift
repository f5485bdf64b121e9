import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

@Suite("fidelity")
struct FidelityTests {
    static let body: JSON = [
        "integers": [.integer(Int64.max), .integer(Int64.min), 0, -1, .integer(9_007_199_254_740_993)],
        "doubles": [0.1, -0.0, 1e308, 5e-324, 2.5, -1.7976931348623157e308, 1.0, 123456.789e-20],
        "text": ["", "plain", "é (precomposed) and e\u{301} (combined)", "😀👩‍👩‍👧 family", "עברית RTL", "nul \u{0} inside",
                 "quote \" backslash \\ tab \t newline \n", "\u{1F}\u{7F}\u{FEFF}", "中文 日本語 한국어"],
        "nested": ["a": ["b": ["c": [[], [:], [[1, [2, [3]]]], ["deep": ["deeper": true]]]]]],
        "flags": [true, false, nil],
        "keys": ["z": 1, "a": 2, "é": 3, "e\u{301}": 4, "": 5, "10": 6, "9": 7],
    ]

    @Test("64-bit integers, doubles, Unicode, nested objects and arrays come back exactly, and the server keeps the exact text", arguments: SyncServerKind.available)
    func exactRoundTrip(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("fidelity", on: server)
        let a = try fixture.store()
        let b = try fixture.store()
        try a.save(Item(identifier: "values", body: Self.body))
        try a.save(Item(identifier: "键 with spaces / and ünïcode", body: ["n": 1]))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        let sent = try #require(try a.snapshot("values"))
        let received = try #require(try b.snapshot("values"))
        #expect(received.body == Self.body)
        #expect(received.revision == sent.revision)
        #expect(received.body.canonicalText == sent.body.canonicalText)
        let stored = try await fixture.leafBodies(of: "values")
        #expect(stored == [Self.body.canonicalText])
        // Negative zero stays a double with its sign (jsonb would make it 0).
        guard case .array(let doubles)? = received.body.value(atPath: "doubles"), case .double(let zero) = doubles[1] else {
            Issue.record("no doubles array")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
        #expect(try b.snapshot("键 with spaces / and ünïcode")?.body == ["n": 1])
        await fixture.dropSchema()
    }
}
