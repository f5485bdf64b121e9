import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Synchronization
import TestSupport

/// Runs `body` with the graph's suites in a fresh temporary folder and `settings` as the standard
/// suite (the name the `settings` app uses), so persisted tests run in parallel without sharing files.
func withSuiteFolder<T>(_ body: (TemporaryFolder) throws -> T) throws -> T {
    let folder = try TemporaryFolder(prefix: "state-graph")
    return try GraphStorageLocation.$folder.withValue(folder.url) {
        try GraphStorageLocation.$standardSuiteName.withValue("settings") {
            try body(folder)
        }
    }
}

/// The async flavour of `withSuiteFolder`.
func withSuiteFolder<T>(_ body: (TemporaryFolder) async throws -> T) async throws -> T {
    let folder = try TemporaryFolder(prefix: "state-graph")
    return try await GraphStorageLocation.$folder.withValue(folder.url) {
        try await GraphStorageLocation.$standardSuiteName.withValue("settings") {
            try await body(folder)
        }
    }
}

/// A counter `@Sendable` closures can bump.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func bump() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A list `@Sendable` closures can append to.
final class Recorded<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// Polls `condition` every 5 ms with `Task.sleep` (never blocking a pool thread, which the suite's
/// watcher task may need) until it holds or `timeout` passes; returns whether it held. It runs on the
/// caller's isolation, so a main-actor test can poll its own state.
func eventually(timeout: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation,
                _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Writes `value` under `key` of the suite `suite` (`nil` removes the key) through a `DefaultsSuite`
/// object of its own, as another process would. Synchronous, so an `async` test's call does not
/// depend on `DefaultsSuite`'s async API.
func writeAsAnotherProcess(_ value: PlistValue?, forKey key: String, suite: String = "settings",
                           in folder: TemporaryFolder) throws {
    try DefaultsSuite(suiteName: suite, folder: folder.url).set(value, forKey: key)
}

/// Waits until the graph has handled every change of the suite `suite` in `folder` it had heard of
/// when called (a node's own write included): writes a marker key from outside and waits for a node
/// of the same file to see it. The graph's watcher handles one suite's changes in order, so the
/// marker comes last. Returns whether it arrived within `timeout`.
func suiteSettled(_ suite: String = "settings", in folder: TemporaryFolder,
                  timeout: Duration = .seconds(60)) async throws -> Bool {
    let marker = GraphStorageLocation.$folder.withValue(folder.url) {
        StoredNode(name: "marker", backing: .userDefaults(suite: suite, key: "test.marker"), defaultValue: 0)
    }
    let next = marker.wrappedValue + 1
    try writeAsAnotherProcess(.int(next), forKey: "test.marker", suite: suite, in: folder)
    return await eventually(timeout: timeout) { marker.wrappedValue == next }
}

/// A file's inode and bytes: a rewrite (a new file renamed over it) changes the inode even when the
/// bytes are the same.
struct FileSnapshot: Equatable {
    let inode: UInt64
    let bytes: Data

    init(_ url: URL) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        bytes = try Data(contentsOf: url)
    }
}

/// Runs each of `bodies` on a thread of its own, all at once, and waits up to `timeout` for all of
/// them; returns their results in order, or `nil` if one did not finish (it is left blocked: a test
/// that gets `nil` has found a hang).
func finishOnThreads<T: Sendable>(within timeout: Duration = .seconds(30),
                                  _ bodies: (@Sendable () -> T)...) async -> [T]? {
    let results = Recorded<(Int, T)>()
    for (index, body) in bodies.enumerated() {
        Thread.detachNewThread { results.append((index, body())) }
    }
    guard await eventually(timeout: timeout, { results.all.count == bodies.count }) else { return nil }
    return results.all.sorted { $0.0 < $1.0 }.map(\.1)
}

/// A meeting point with a deadline: each party arrives and waits until all have, or `timeout` passes.
final class Rendezvous: Sendable {
    private let parties: Int
    private let arrived = Atomic<Int>(0)

    init(parties: Int) {
        self.parties = parties
    }

    /// Arrives and waits for the others; returns whether all arrived within `timeout`.
    func arriveAndWait(timeout: Duration = .seconds(20)) -> Bool {
        arrived.add(1, ordering: .sequentiallyConsistent)
        let deadline = ContinuousClock.now + timeout
        while arrived.load(ordering: .sequentiallyConsistent) < parties {
            if ContinuousClock.now >= deadline { return false }
            usleep(1_000)
        }
        return true
    }
}

/// Computed nodes made after the rules that read them (a cycle needs a rule to read a node made later).
/// The rules hold this and this holds the nodes, a retain cycle (LeakSanitizer reported every one):
/// a test ends with `defer { late.removeAll() }`. A rule still running after that (on a thread of a
/// test that already failed by timing out) reads a node of constant 0 instead of trapping.
final class LateNodes: @unchecked Sendable {
    private let nodes = Mutex<[String: Computed<Int>]>([:])

    subscript(name: String) -> Computed<Int> {
        get { nodes.withLock { $0[name] } ?? Computed(name: "\(name) (removed)") { _ in 0 } }
        set { nodes.withLock { $0[name] = newValue } }
    }

    func removeAll() { nodes.withLock { $0.removeAll() } }
}

/// Two nodes that read each other once `cyclic` is true (a = b + 1, b = a + 10; 1 and 2 before).
/// The caller ends with `defer { cycle.late.removeAll() }`.
struct TwoNodeCycle {
    let cyclic = Stored(name: "cyclic", wrappedValue: false)
    let late = LateNodes()
    let a: Computed<Int>
    let b: Computed<Int>

    init() {
        let (cyclic, late) = (cyclic, late)
        a = Computed(name: "a") { _ in cyclic.wrappedValue ? late["b"].wrappedValue + 1 : 1 }
        b = Computed(name: "b") { _ in cyclic.wrappedValue ? late["a"].wrappedValue + 10 : 2 }
        late["a"] = a
        late["b"] = b
    }
}
