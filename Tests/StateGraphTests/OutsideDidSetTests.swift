import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Testing
import TestSupport

/// `GraphUserDefault.onDidSet` sees every change of its value, as swift-state-graph 0.26 does: this
/// wrapper's sets, and changes another writer made (another `DefaultsSuite` on the suite, another
/// process). The invariant: each change is told once, in order, each call's old value the previous
/// call's new one; an equal set tells nothing. `Stored.onDidSet` sees this process's sets only (0.25).
@Suite struct OutsideDidSetTests {
    @Test("another DefaultsSuite instance's set reaches onDidSet, with the old and the new value")
    func anotherInstancesSet() async throws {
        let folder = try TemporaryFolder(prefix: "graph-outside-didset")
        let v = GraphStorageLocation.$folder.withValue(folder.url) { GraphUserDefault(wrappedValue: "initial", "k", suiteName: "s") }
        let calls = Recorded<String>()
        v.onDidSet { old, new in calls.append("\(old) \(new)") }
        try DefaultsSuite(suiteName: "s", folder: folder.url).set("external", forKey: "k")
        #expect(await eventually { calls.all == ["initial external"] }, "\(calls.all)")
        #expect(v.wrappedValue == "external")
        // A set through the wrapper, then another writer removing the key (the default shows again).
        v.wrappedValue = "mine"
        try DefaultsSuite(suiteName: "s", folder: folder.url).set(nil, forKey: "k")
        #expect(await eventually { calls.all.count == 3 }, "\(calls.all)")
        #expect(calls.all == ["initial external", "external mine", "mine initial"])
    }

    @Test("another process's sets reach onDidSet once per change, in order, and its equal set tells nothing; Stored.onDidSet sees none of them")
    func anotherProcesssSets() async throws {
        let folder = try TemporaryFolder(prefix: "graph-outside-process")
        let (count, plain) = GraphStorageLocation.$folder.withValue(folder.url) {
            (GraphUserDefault(wrappedValue: 0, GraphProbeSuite.countKey, suiteName: GraphProbeSuite.name),
             StoredNode(name: "plain", backing: .userDefaults(suite: GraphProbeSuite.name, key: GraphProbeSuite.countKey), defaultValue: 0))
        }
        let calls = Recorded<String>()
        count.onDidSet { old, new in calls.append("\(old)->\(new)") }
        let plainCalls = Recorded<String>()
        plain.onDidSet { old, new in plainCalls.append("\(old)->\(new)") }
        let probe = try ChildProcess.builtProgram("graph-probe")
        var expected: [String] = []
        for (value, told) in [(1, "0->1"), (2, "1->2")] {
            let child = try ChildProcess.start(probe, ["set-count", folder.url.path, "\(value)"])
            #expect(try await child.waitForExit(deadline: .now + .seconds(60)) == .exited(0), "\(child.standardError)")
            expected.append(told)
            #expect(await eventually { calls.all == expected }, "after the probe set \(value): \(calls.all)")
        }
        count.wrappedValue = 5
        expected.append("2->5")
        #expect(calls.all == expected)
        // The same value from another process: the file changes, the value does not.
        let same = try ChildProcess.start(probe, ["set-count", folder.url.path, "5"])
        #expect(try await same.waitForExit(deadline: .now + .seconds(60)) == .exited(0))
        #expect(try await suiteSettled(GraphProbeSuite.name, in: folder))
        #expect(calls.all == expected)
        #expect(plain.wrappedValue == 5)
        #expect(plainCalls.all.isEmpty, "Stored.onDidSet saw another writer's change: \(plainCalls.all)")
    }

    @Test("a handler that lets go of the last reference to its wrapper: the wrapper lives until the call returns, and later changes tell nobody")
    func theWrapperLivesThroughItsCall() async throws {
        let folder = try TemporaryFolder(prefix: "graph-outside-release")
        final class Holder: @unchecked Sendable { var wrapper: GraphUserDefault<Int>? }
        let holder = Holder()
        holder.wrapper = GraphStorageLocation.$folder.withValue(folder.url) { GraphUserDefault(wrappedValue: 0, "n", suiteName: "s") }
        let calls = Recorded<String>()
        weak var released: GraphUserDefault<Int>?
        released = holder.wrapper
        holder.wrapper!.onDidSet { old, new in
            holder.wrapper = nil
            calls.append("\(old)->\(new)")
        }
        let outside = DefaultsSuite(suiteName: "s", folder: folder.url)
        try outside.set(1, forKey: "n")
        #expect(await eventually { calls.all == ["0->1"] }, "\(calls.all)")
        #expect(await eventually { released == nil }, "the wrapper outlived its last reference")
        try outside.set(2, forKey: "n")
        #expect(try await suiteSettled("s", in: folder))
        #expect(calls.all == ["0->1"])
    }
}
