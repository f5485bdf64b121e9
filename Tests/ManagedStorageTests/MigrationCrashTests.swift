import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// A process killed at random moments while it migrates a store of 100,000 rows (a rename, an added
/// attribute and a removed one: the table is rebuilt) leaves the old store or the new one, never a mix.
///
/// After each kill, the old program (version 1) opens the store: either it opens (the migration's one
/// transaction did not commit) and holds the old rows exactly; or it is refused as a store a newer
/// program migrated, and the new program then finds the new rows exactly. No copy is ever taken.
@Suite struct MigrationCrashTests {
    static let entries = 100_000

    static func configuration(_ folder: URL) -> StorageConfiguration {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.onError = { _ in }
        return configuration
    }

    /// count, sum(code), sum(length(text column)), sum(amount), the links to accounts, and how many
    /// account names are upper-cased (none in the old store, all 10 in the new one): the whole store
    /// in a few numbers, computed by SQLite.
    static func digest(_ folder: URL, text: String) throws -> [Double] {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*), sum("code"), sum(length("\(text)")), sum("amount"), sum("account" % 10),
                       (SELECT count(*) FROM "Account" WHERE "name" = upper("name"))
                FROM "Entry"
                """)!
            return (0..<6).map { Double((row[$0] as Double?) ?? -1) }
        }
    }

    static func columns(_ folder: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Entry') ORDER BY name") }
    }

    @Test func aKillDuringAMigrationOf100kRowsLeavesTheOldStoreOrTheNewOne() async throws {
        let temp = try TemporaryFolder(prefix: "managed-migration-kill")
        let pristine = temp.folder("pristine")
        try FileManager.default.createDirectory(at: pristine, withIntermediateDirectories: true)
        try fillLedgerV1(try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(pristine)),
                         entries: Self.entries)
        let oldDigest = try Self.digest(pristine, text: "title")
        #expect(oldDigest[0] == Double(Self.entries))
        let trial = temp.folder("trial")
        func reset() throws {
            try? FileManager.default.removeItem(at: trial)
            try FileManager.default.createDirectory(at: trial, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: pristine.appendingPathComponent("Store.sqlite"),
                                             to: trial.appendingPathComponent("Store.sqlite"))
        }

        // One migration to the end: how long it takes (the kills land within 1.2 times that), and
        // what the new store holds.
        try reset()
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(300))
        let whole = try ChildProcess.start(faults.program, ["migrate", trial.path])
        let migrated = try await whole.waitForLine(deadline: .now + .seconds(300)) { $0.hasPrefix("migrated ") }
        whole.kill(SIGKILL)
        _ = try await whole.waitForExit(deadline: .now + .seconds(60))
        let milliseconds = Int(migrated.split(separator: " ")[1]) ?? 1000
        let newDigest = try Self.digest(trial, text: "label")
        var expectedNew = oldDigest
        expectedNew[5] = 10
        #expect(newDigest == expectedNew, "the new store holds every row, renamed column and link")
        #expect(try Self.columns(trial) == ["account", "amount", "code", "id", "label", "revision"])
        print("MigrationCrashTests: migrating \(Self.entries) rows took \(milliseconds) ms in the probe")

        var old = 0, new = 0
        try await faults.killAtRandomMoments(label: "managed migration of \(Self.entries) rows", trials: 40,
                                             maxPause: .milliseconds(milliseconds * 6 / 5 + 20),
                                             arguments: { _ in
                                                 try? reset()
                                                 return ["migrate", trial.path]
                                             },
                                             ready: { $0 == "ready migrating" }) { kill in
            #expect(!FileManager.default.fileExists(atPath: trial.appendingPathComponent("Store.sqlite.before-migration").path))
            do {
                _ = try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(trial))
                #expect(try Self.columns(trial) == ["account", "amount", "code", "id", "memo", "title"], "\(kill)")
                #expect(try Self.digest(trial, text: "title") == oldDigest, "the old store, whole: \(kill)")
                old += 1
            } catch StorageError.schemaNewerThanProgram {
                _ = try SQLiteStorageManager(model: ledgerModelV2, configuration: Self.configuration(trial))
                #expect(try Self.columns(trial) == ["account", "amount", "code", "id", "label", "revision"], "\(kill)")
                #expect(try Self.digest(trial, text: "label") == expectedNew, "the new store, whole: \(kill)")
                new += 1
            }
        }
        print("MigrationCrashTests: \(old) kills left the old store, \(new) the new one")
        #expect(old + new == 40)
        #expect(old >= 1, "at least one kill landed while the migration ran")
    }

    /// Issue 45, item 1: process A keeps committing with the old model while process B migrates the
    /// store and is killed at a random moment. Every commit A acknowledged is in the store afterwards,
    /// migrated or not; and when B's migration committed, A's next operation failed with
    /// `schemaNewerThanProgram` instead of writing into the changed tables.
    @Test func aKilledMigrationNeverUndoesAnotherProcesssCommits() async throws {
        let temp = try TemporaryFolder(prefix: "managed-migration-writer")
        let pristine = temp.folder("pristine")
        try FileManager.default.createDirectory(at: pristine, withIntermediateDirectories: true)
        try fillLedgerV1(try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(pristine)), entries: 20_000)
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(120))
        let seed = ProcessFaults.crashSeed(label: "killed migration beside a writer")
        var rng = SeededGenerator(seed: seed)
        var acknowledged = 0, oldStores = 0, newStores = 0
        for trial in 1...12 {
            let folder = temp.folder("trial-\(trial)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: pristine.appendingPathComponent("Store.sqlite"), to: folder.appendingPathComponent("Store.sqlite"))
            let writer = try ChildProcess.start(faults.program, ["ledger-write-loop", folder.path])
            _ = try await writer.waitForLine(deadline: .now + .seconds(60)) { $0 == "acked ledger 1" }
            let migrator = try ChildProcess.start(faults.program, ["migrate", folder.path])
            _ = try await migrator.waitForLine(deadline: .now + .seconds(60)) { $0 == "ready migrating" }
            // The kill moment: anywhere in the migration (20,000 rows take about 100 ms), or after it.
            try await Task.sleep(for: .microseconds(rng.int(in: 0...250_000)))
            migrator.kill(SIGKILL)
            _ = try await migrator.waitForExit(deadline: .now + .seconds(60))
            let migrated = migrator.outputLines.contains { $0.hasPrefix("migrated ") }
            // The writer goes on (or has stopped at its typed error): wait for 20 more commits or its end.
            writer.poll()
            let before = writer.outputLines.filter { $0.hasPrefix("acked ledger ") }.count
            let deadline = ContinuousClock.now + .seconds(30)
            while writer.termination == nil && writer.outputLines.filter({ $0.hasPrefix("acked ledger ") }).count < before + 20
                    && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
                writer.poll()
            }
            writer.kill(SIGKILL)
            _ = try await writer.waitForExit(deadline: .now + .seconds(60))
            let acked = writer.outputLines.filter { $0.hasPrefix("acked ledger ") }.count
            acknowledged += acked
            // The next program to open it, as a user's would: the old one, or the new one if it is refused.
            // (A `catch StorageError.schemaNewerThanProgram` clause here crashes Swift 6.3.1's SILGen.)
            if case .failure(let error) = Result(catching: { try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(folder)) }) {
                guard case .schemaNewerThanProgram? = error as? StorageError else { throw error }
                _ = try SQLiteStorageManager(model: ledgerModelV2, configuration: Self.configuration(folder))
            }
            let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
            let (written, isNew) = try await queue.read { db in
                (try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Entry" WHERE "code" > 1000000"#) ?? 0,
                 try db.columns(in: "Entry").contains { $0.name == "label" })
            }
            try queue.close()
            #expect(written >= acked, "trial \(trial), seed \(seed): \(acked) commits acknowledged, \(written) in the store")
            if isNew {
                newStores += 1
                #expect(writer.standardError.contains("schemaNewerThanProgram"),
                        "trial \(trial), seed \(seed): the store was migrated (migrator said so: \(migrated)) and the old writer was not refused: \(writer.termination.map { "\($0)" } ?? "running"), \(acked) acked (\(before) before the kill), \(written) written; stderr: \(writer.standardError)")
            } else {
                oldStores += 1
                #expect(!migrated, "trial \(trial): the migrator finished but the store is the old one")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Store.sqlite.before-migration").path))
        }
        print("MigrationCrashTests: 12 migrations killed beside a writer (seed \(seed)): \(acknowledged) acknowledged commits, none lost; \(oldStores) old stores, \(newStores) migrated")
    }

    /// Three processes open the same version-1 store with version 2 at one moment, 10 times: they
    /// migrate one after the other (`MigrationLock`), so the store ends migrated once and whole, with
    /// one record per model, and no process restores a copy another one is still using.
    @Test func processesOpeningAnOldStoreAtOneMomentMigrateItOnce() async throws {
        let temp = try TemporaryFolder(prefix: "managed-migration-race")
        let pristine = temp.folder("pristine")
        try FileManager.default.createDirectory(at: pristine, withIntermediateDirectories: true)
        try fillLedgerV1(try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(pristine)), entries: 20_000)
        var expected = try Self.digest(pristine, text: "title")
        expected[5] = 10
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(300))
        for round in 1...10 {
            let trial = temp.folder("round-\(round)")
            try FileManager.default.createDirectory(at: trial, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: pristine.appendingPathComponent("Store.sqlite"),
                                             to: trial.appendingPathComponent("Store.sqlite"))
            let children = try await faults.runTogether(Array(repeating: ["migrate", trial.path, "once"], count: 3))
            #expect(children.allSatisfy { $0.outputLines.contains { $0.hasPrefix("migrated ") } }, "round \(round)")
            #expect(try Self.digest(trial, text: "label") == expected, "round \(round): the new store, whole")
            let queue = try DatabaseQueue(path: trial.appendingPathComponent("Store.sqlite").path)
            let (records, upper) = try await queue.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM managedstorage_schema") ?? 0,
                 try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Account" WHERE "name" = upper("name")"#) ?? 0)
            }
            try queue.close()
            #expect(records == 2 && upper == 10, "round \(round): migrated once (\(records) records)")
            #expect(!FileManager.default.fileExists(atPath: trial.appendingPathComponent("Store.sqlite.before-migration").path))
        }
    }
}
