import Foundation
import StateGraph
import Synchronization
import TestSupport

/// Runs `body` with StateGraph's suites in a fresh temporary folder and the standard suite named
/// `settings`, as the `settings` app names it, so this process's models and the app share files.
func withSettingsFolder<T>(_ body: (TemporaryFolder) async throws -> T) async throws -> T {
    let folder = try TemporaryFolder(prefix: "settings-app")
    return try await GraphStorageLocation.$folder.withValue(folder.url) {
        try await GraphStorageLocation.$standardSuiteName.withValue("settings") {
            try await body(folder)
        }
    }
}

/// Asks `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// A counter `@Sendable` closures can bump.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func bump() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A file's inode and bytes: equal snapshots mean the file was neither replaced nor rewritten.
struct FileSnapshot: Equatable {
    let inode: UInt64
    let bytes: Data

    init(_ url: URL) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        bytes = try Data(contentsOf: url)
    }
}
