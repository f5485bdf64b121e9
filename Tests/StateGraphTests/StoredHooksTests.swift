import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Testing
import TestSupport

/// swift-state-graph's stored-node extras: `onDidSet`, identity as equality for objects, `unsafeModify`.
@Suite("stored hooks")
struct StoredHooksTests {
    @Test("onDidSet runs after every set with the old and new value, equal sets included; a second handler replaces the first")
    func didSet() {
        let count = Stored(name: "count", wrappedValue: 0)
        let doubled = Computed { _ in count.wrappedValue * 2 }
        var calls: [String] = []
        count.onDidSet { old, new in calls.append("\(old)->\(new) doubled \(doubled.wrappedValue)") }
        count.wrappedValue = 42
        count.wrappedValue = 42
        #expect(calls == ["0->42 doubled 84", "42->42 doubled 84"], "after the change has spread")
        var second: [Int] = []
        count.onDidSet { _, new in second.append(new) }
        count.wrappedValue = 1
        #expect(calls.count == 2 && second == [1])
        count.unsafeModify { $0 = 5 }
        #expect(second == [1], "unsafeModify tells nobody")
        let text = Stored(name: "text", wrappedValue: ["a"])
        var texts: [[String]] = []
        text.onDidSet { old, new in texts.append(old + new) }
        text.wrappedValue = ["b"]
        #expect(texts == [["a", "b"]])
    }

    @Test("an object set again is no change; another instance is; an Equatable object compares with ==")
    func objectIdentity() {
        final class Box { var n = 0 }
        final class Named: Equatable {
            let name: String
            init(_ name: String) { self.name = name }
            static func == (a: Named, b: Named) -> Bool { a.name == b.name }
        }
        let first = Box()
        let node = Stored(name: "box", wrappedValue: first)
        let reader = Computed { _ in node.wrappedValue.n }
        _ = reader.wrappedValue
        let fired = Counter()
        withGraphObservationTracking { _ = node.wrappedValue } onChange: { fired.bump() }
        node.wrappedValue = first
        _ = reader.wrappedValue
        #expect(fired.count == 0 && reader.evaluationCount == 1, "the same instance is no change")
        node.wrappedValue = Box()
        _ = reader.wrappedValue
        #expect(fired.count == 1 && reader.evaluationCount == 2)
        let named = Stored(name: "named", wrappedValue: Named("a"))
        let names = Counter()
        withGraphObservationTracking { _ = named.wrappedValue } onChange: { names.bump() }
        named.wrappedValue = Named("a")
        #expect(names.count == 0, "equal by ==, though another instance")
        named.wrappedValue = Named("b")
        #expect(names.count == 1)
    }

    @Test("unsafeModify changes the value in place, returns the closure's result, marks nothing stale, and leaves the value as it was when the closure throws")
    func unsafeModify() {
        struct Refused: Error {}
        let count = Stored(name: "count", wrappedValue: 1)
        let list = Stored(name: "list", wrappedValue: [1, 2])
        let sum = Computed { _ in count.wrappedValue + list.wrappedValue.reduce(0, +) }
        #expect(sum.wrappedValue == 4)
        let fired = Counter()
        withGraphObservationTracking { _ = count.wrappedValue; _ = list.wrappedValue } onChange: { fired.bump() }
        let returned = count.unsafeModify { value -> String in
            value += 10
            return "done"
        }
        list.unsafeModify { $0.append(3) }
        #expect(returned == "done")
        #expect(count.wrappedValue == 11 && list.wrappedValue == [1, 2, 3])
        #expect(sum.wrappedValue == 4 && sum.evaluationCount == 1, "dependents keep their cached value")
        #expect(fired.count == 0)
        #expect(throws: Refused.self) { try list.unsafeModify { _ throws(Refused) in throw Refused() } }
        #expect(list.wrappedValue == [1, 2, 3])
        count.wrappedValue = 0   // a real change reaches the dependents with both edits
        #expect(sum.wrappedValue == 6)
    }

    @Test("unsafeModify on a suite-backed node writes the suite, and tells nobody in this process")
    func unsafeModifyWritesTheSuite() throws {
        let folder = try TemporaryFolder(prefix: "state-graph")
        let node = GraphStorageLocation.$folder.withValue(folder.url) {
            StoredNode(name: "tags", backing: .userDefaults(suite: "quiet", key: "tags"), defaultValue: ["a"])
        }
        let fired = Counter()
        withGraphObservationTracking { _ = node.wrappedValue } onChange: { fired.bump() }
        node.unsafeModify { $0.append("b") }
        #expect(node.wrappedValue == ["a", "b"])
        #expect(fired.count == 0)
        let file = try PlistValue(parsing: try Data(contentsOf: folder.file("quiet.plist")))
        #expect(file.dictionaryValue?["tags"] == .array([.string("a"), .string("b")]))
    }
}
