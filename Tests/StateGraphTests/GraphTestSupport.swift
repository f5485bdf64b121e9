import Foundation
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
/// watcher task may need) until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
