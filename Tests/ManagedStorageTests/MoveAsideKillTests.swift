import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// A store moved aside (an incompatible store under `.moveAsideAndStartEmpty`, or a corrupt one) is
/// three files renamed one after the other: the database, its `-wal`, its `-shm`. The invariant: a
/// process killed between any two of those renames loses nothing that was kept aside, and the next
/// open serves none of it as the new store. A store whose last commits are still in its `-wal` (as
/// they are here: SQLite has not checkpointed them) keeps them only if the `-wal` reaches the copy;
/// SQLite deletes a `-wal` it finds without its database.
@Suite struct MoveAsideKillTests {
    /// Entries the killed writer had acknowledged (500 written before the migration, 40 after).
    static let acknowledged = 540

    static func configuration(_ folder: URL) -> StorageConfiguration {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.onError = { _ in }
        return configuration
    }

    /// A version-2 ledger that a writer killed with SIGKILL left: made with version 1, migrated, then
    /// written one entry per transaction until `acknowledged`; its last commits are in its `-wal`.
    static func storeLeftByAKilledWriter(_ folder: URL) async throws {
        let writer = try ChildProcess.start(try ChildProcess.builtProgram("managed-probe"), ["ledger-migrate-loop", folder.path])
        _ = try await writer.waitForLine(deadline: .now + .seconds(120), where: { $0 == "acked entries \(acknowledged)" })
        writer.kill(SIGKILL)
        _ = try await writer.waitForExit(deadline: .now + .seconds(60))
        let wal = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("Store.sqlite-wal").path)[.size] as? Int) ?? 0
        #expect(wal > 4096, "the test needs commits in the -wal; it has \(wal) bytes")
    }

    /// The entries of the copy moved aside, opened as the version-2 store it was: its files (the
    /// database and whichever companions sit beside it) are copied to a folder of their own first.
    static func entriesKeptAside(_ aside: URL) throws -> Int {
        let copy = try TemporaryFolder(prefix: "managed-aside-copy")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: aside.path + suffix) {
            try FileManager.default.copyItem(atPath: aside.path + suffix, toPath: copy.file("Store.sqlite" + suffix).path)
        }
        let manager = try SQLiteStorageManager(model: ledgerModelV2, configuration: configuration(copy.url))
        return try manager.read { $0.countObjects(ofType: EntryV2.self) }
    }

    static func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test("a -wal left behind by a move aside that a killed process began follows the moved store, with every commit in it")
    func leftBehindCompanionsFollowTheMovedStore() async throws {
        let temp = try TemporaryFolder(prefix: "managed-move-left")
        try await Self.storeLeftByAKilledWriter(temp.url)
        // What a kill after the first rename leaves: the database moved, its -wal and -shm not.
        let aside = temp.file("Store.sqlite.incompatible-20261128T101500.000Z")
        #expect(rename(temp.file("Store.sqlite").path, aside.path) == 0)
        var policy = Self.configuration(temp.url)
        policy.incompatibleStore = .moveAsideAndStartEmpty
        let fresh = try SQLiteStorageManager(model: ledgerModelV1, configuration: policy)
        #expect(try fresh.read { $0.countObjects(ofType: EntryV1.self) } == 0)
        let names = try Self.names(temp.url)
        #expect(FileManager.default.fileExists(atPath: aside.path + "-wal"), "the -wal did not follow: \(names)")
        let kept = try Self.entriesKeptAside(aside)
        #expect(kept >= Self.acknowledged, "what was moved aside lost commits: \(kept) of \(Self.acknowledged)")
    }

    /// `strace` delivers SIGKILL to the probe at its `k`-th rename, before the rename runs: k = 1 kills
    /// it before anything moved, 2 after the database moved, 3 after the `-wal` moved too.
    @Test("a process killed before each rename of a move aside: the next open finishes it, and the copy holds every entry",
          .enabled(if: StraceInjection.isAvailable, Comment(rawValue: StraceInjection.skipReason)), arguments: 1...3)
    func killedAtEachRenameOfAMoveAside(k: Int) async throws {
        let temp = try TemporaryFolder(prefix: "managed-move-kill")
        try await Self.storeLeftByAKilledWriter(temp.url)
        let probe = try ChildProcess.builtProgram("managed-probe")
        let killed = try ChildProcess.start(StraceInjection.strace,
                                            StraceInjection.killAtRename(k) + [probe.path, "ledger-open-moving-aside", temp.url.path])
        let end = try await killed.waitForExit(deadline: .now + .seconds(120))
        #expect(end == .signaled(SIGKILL), "k = \(k): the probe was not killed at its rename: \(end), \(killed.standardError)")
        let left = try Self.names(temp.url)
        let next = try ChildProcess.start(probe, ["ledger-open-moving-aside", temp.url.path])
        let nextEnd = try await next.waitForExit(deadline: .now + .seconds(120))
        #expect(nextEnd == .exited(0), "k = \(k): \(next.standardError)")
        let opened = try #require(next.outputLines.first { $0.hasPrefix("opened ") }, "k = \(k): \(next.standardOutput)")
        #expect(opened.hasPrefix("opened entries 0 "), "k = \(k): the new store is not empty: \(opened)")
        // One copy aside, which holds every entry; no companion left anywhere else.
        let names = try Self.names(temp.url)
        let asides = names.filter { $0.hasPrefix("Store.sqlite.incompatible-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(asides.count == 1, "k = \(k): after the kill \(left), after the next open \(names)")
        #expect(!names.contains { $0.contains("orphan") }, "k = \(k): \(names)")
        let aside = try #require(asides.first.map { temp.file($0) })
        let kept = try Self.entriesKeptAside(aside)
        #expect(kept >= Self.acknowledged, "k = \(k): after the kill \(left); the copy aside has \(kept) of \(Self.acknowledged) entries")
        print("MoveAsideKillTests k=\(k): after the kill \(left); then \(opened)")
    }

    @Test("three processes opening one incompatible store at once: one moves it aside, all open the new store, the copy holds every entry")
    func threeProcessesMoveOneStoreAsideOnce() async throws {
        let temp = try TemporaryFolder(prefix: "managed-move-three")
        try await Self.storeLeftByAKilledWriter(temp.url)
        let probe = try ChildProcess.builtProgram("managed-probe")
        let children = try (0..<3).map { _ in try ChildProcess.start(probe, ["ledger-open-moving-aside", temp.url.path]) }
        try await ChildProcess.waitForAll(children, deadline: .now + .seconds(120))
        var moved: [String] = []
        for child in children {
            #expect(child.termination == .exited(0), "\(child.standardError)")
            let opened = try #require(child.outputLines.first { $0.hasPrefix("opened ") }, "\(child.standardOutput)")
            #expect(opened.hasPrefix("opened entries 0 "), "\(opened)")
            if !opened.hasSuffix(" moved none") { moved.append(opened) }
        }
        #expect(moved.count == 1, "\(moved)")
        let names = try Self.names(temp.url)
        let asides = names.filter { $0.hasPrefix("Store.sqlite.incompatible-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(asides.count == 1, "\(names)")
        let aside = try #require(asides.first.map { temp.file($0) })
        #expect(try Self.entriesKeptAside(aside) >= Self.acknowledged)
    }
}
