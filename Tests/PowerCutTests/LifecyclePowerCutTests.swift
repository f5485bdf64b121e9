import Foundation
import Testing
import TestSupport

/// Lifecycle events crossed with a power cut (issue 45), each on a store that starts anew every cut
/// (`freshStoreEvery: 1`):
///
/// - **A folder made by a process that died** (item 5). Per cut, once lazyfs is mounted, a first
///   process makes the store's folder (and its parent) with bare `mkdir`s and is killed with SIGKILL
///   before any `fsync` (`PowerCuts.killedMaker(of:)`); then the store's writer opens the store in
///   that folder and acknowledges writes; then the power is cut. Every acknowledged write must be
///   there: the store flushes the folder chain it found (`AppDirectories.createFolder`). Without
///   that, the folder, and every write in it, was gone after every cut.
/// - **A delete a power cut undoes** (item 6). DocumentStore's `deleteDatabase()` returns, then the
///   power is cut: the store must not be back with its documents.
///
/// - **A damaged store recovered** (the SQLite stores' corrupt-file policy). Per cut, before the writer
///   starts, a damaged `Store.sqlite` (bytes that are no database) is written to the store's folder and
///   flushed; the writer's open moves it aside and starts a new store, acknowledges transactions, and
///   the power is cut. Every acknowledged transaction must be in the new store: the move aside must not
///   come undone and bring the damaged file back over it.
///
/// `swift test` runs `defaultCuts` cuts per case; `ci/test` and `ci/power-campaign` a quarter of
/// `TOOLKIT_POWER_CUTS` (`cuts`).
@Suite(.serialized, .enabled(if: PowerCuts.isAvailable, "power-cut tests need /dev/fuse and fusermount3 (Docs/LazyFS.md)"))
struct LifecyclePowerCutTests {
    static let defaultCuts = 5

    /// A quarter of `TOOLKIT_POWER_CUTS` (each cut here is a whole lifecycle on a new store, and there
    /// are eleven cases): 25 in `ci/test`, 500 in a 2,000-cut campaign; `defaultCuts` in `swift test`.
    static var cuts: Int { max(defaultCuts, PowerCuts.cutCount(default: defaultCuts * 4) / 4) }

    /// The store's folder on the mount (or, for `backing`, in the backing folder): two levels the
    /// killed process makes.
    static func storeFolder(_ root: URL) -> URL {
        root.appendingPathComponent("app/store", isDirectory: true)
    }

    // MARK: Item 5: a folder made by a process that died

    @Test("PlistFileStorage.update in a folder a killed process made: every acknowledged write survives a power cut")
    func plistFileStorageInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "PlistFileStorage, dead maker", probe: "storage-probe",
                                                  writer: { ["power-writer", "storage", Self.storeFolder($0.mount).path, "\($0.firstValue)"] },
                                                  read: { try StoreReaders.plistFile(Self.storeFolder($0)) })
    }

    @Test("DefaultsSuite.set in a folder a killed process made: every acknowledged write survives a power cut")
    func defaultsSuiteInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "DefaultsSuite, dead maker", probe: "storage-probe",
                                                  made: { PowerWriterLayout.defaultsFolder(Self.storeFolder($0)) },
                                                  writer: { ["power-writer", "defaults", Self.storeFolder($0.mount).path, "\($0.firstValue)"] },
                                                  read: { try StoreReaders.defaultsSuite(Self.storeFolder($0)) })
    }

    @Test("@PersistedModel in a folder a killed process made: every acknowledged set survives a power cut")
    func persistedModelInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "@PersistedModel, dead maker", probe: "model-probe",
                                                  writer: { ["set-loop", Self.storeFolder($0.mount).path] },
                                                  checker: { ["power-check", Self.storeFolder($0).path] })
    }

    @Test("DataPersistence.createItem in a folder a killed process made: every acknowledged item survives a power cut")
    func dataPersistenceInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "DataPersistence, dead maker", probe: "collection-probe",
                                                  writer: { ["create-loop", Self.storeFolder($0.mount).appendingPathComponent("items.plist").path, "1"] },
                                                  checker: { ["power-check", Self.storeFolder($0).appendingPathComponent("items.plist").path] })
    }

    @Test("StateGraph's suite node in a folder a killed process made: every acknowledged set survives a power cut")
    func graphStoredNodeInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "StateGraph suite node, dead maker", probe: "graph-probe",
                                                  writer: { ["set-loop", Self.storeFolder($0.mount).path] },
                                                  checker: { ["power-check", Self.storeFolder($0).path] })
    }

    @Test("ManagedStorage in a folder a killed process made: every acknowledged transaction survives a power cut")
    func managedStorageInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "ManagedStorage, dead maker", probe: "managed-probe",
                                                  writer: { ["write-loop", Self.storeFolder($0.mount).path] },
                                                  checker: { ["power-check", Self.storeFolder($0).path] })
    }

    @Test("DocumentStore in a folder a killed process made: every acknowledged save survives a power cut")
    func documentStoreInADeadProcessFolder() async throws {
        try await expectNoLossInDeadProcessFolder(label: "DocumentStore, dead maker", probe: "document-probe",
                                                  writer: { ["write-loop", Self.storeFolder($0.mount).path] },
                                                  checker: { ["power-check", Self.storeFolder($0).path] })
    }

    /// A checker probe run on the backing folder (`checker` gets the backing folder).
    private func expectNoLossInDeadProcessFolder(label: String, probe: String, made: @escaping (URL) -> URL = { LifecyclePowerCutTests.storeFolder($0) },
                                                 writer: @escaping (PowerCut) -> [String],
                                                 checker: @escaping (URL) -> [String]) async throws {
        try await expectNoLossInDeadProcessFolder(label: label, probe: probe, made: made, writer: writer,
                                                  read: { try await PowerCuts.probeValues(probe, checker($0)) })
    }

    /// Per cut: the killed maker makes `made(mount)`, the writer `probe` runs `writer`, the power is
    /// cut, `read` reads the backing folder.
    private func expectNoLossInDeadProcessFolder(label: String, probe: String, made: @escaping (URL) -> URL = { LifecyclePowerCutTests.storeFolder($0) },
                                                 writer: @escaping (PowerCut) -> [String],
                                                 read: (URL) async throws -> [String: Int]) async throws {
        let temp = try TemporaryFolder(prefix: "power-dead-maker-\(probe)")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let run = try await PowerCuts(label: label, writer: probe, in: temp)
            .run(cuts: Self.cuts, freshStoreEvery: 1,
                 beforeWriter: { cut in try await PowerCuts.killedMaker(of: made(cut.mount)) },
                 arguments: writer, read: read)
        #expect(run.losses.isEmpty, "\(run):\n\(run.losses.joined(separator: "\n"))")
        #expect(run.acknowledged > 0, "\(run): the writer acknowledged nothing")
    }

    // MARK: A damaged store moved aside, then a power cut

    @Test("ManagedStorage: a damaged store moved aside at open, then a power cut: every acknowledged transaction survives")
    func managedStorageRecoveredThenCut() async throws {
        try await expectNoLossAfterRecovery(label: "ManagedStorage, recovered", probe: "managed-probe")
    }

    @Test("DocumentStore: a damaged store moved aside at open, then a power cut: every acknowledged save survives")
    func documentStoreRecoveredThenCut() async throws {
        try await expectNoLossAfterRecovery(label: "DocumentStore, recovered", probe: "document-probe")
    }

    private func expectNoLossAfterRecovery(label: String, probe: String) async throws {
        let temp = try TemporaryFolder(prefix: "power-recovered-\(probe)")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let run = try await PowerCuts(label: label, writer: probe, in: temp)
            .run(cuts: Self.cuts, freshStoreEvery: 1,
                 beforeWriter: { cut in try Self.writeDamagedStore(in: Self.storeFolder(cut.mount)) },
                 arguments: { ["write-loop", Self.storeFolder($0.mount).path] },
                 read: { try await PowerCuts.probeValues(probe, ["power-check", Self.storeFolder($0).path]) })
        #expect(run.losses.isEmpty, "\(run):\n\(run.losses.joined(separator: "\n"))")
        #expect(run.acknowledged > 0, "\(run): the writer acknowledged nothing")
    }

    /// A `Store.sqlite` of 8 KiB that is no database, flushed with its folder chain (a damage that
    /// survives the cut: only what the store then does may be undone).
    static func writeDamagedStore(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("Store.sqlite")
        let bytes = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        guard FileManager.default.createFile(atPath: file.path, contents: bytes) else {
            throw ChildProcessError(description: "could not write \(file.path)")
        }
        for path in [file.path, folder.path, folder.deletingLastPathComponent().path,
                     folder.deletingLastPathComponent().deletingLastPathComponent().path] {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw ChildProcessError(description: "could not open \(path) to flush it") }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw ChildProcessError(description: "fsync \(path): errno \(errno)") }
        }
    }

    // MARK: Item 6: a delete a power cut undoes

    /// What the checker reports for a store that is gone: above every value a writer acknowledges.
    static let gone = Int.max / 2

    @Test("DocumentStore.deleteDatabase: once it returned, a power cut does not bring the store back")
    func documentStoreDeleteSurvivesAPowerCut() async throws {
        let temp = try TemporaryFolder(prefix: "power-delete-document")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let run = try await PowerCuts(label: "DocumentStore.deleteDatabase", writer: "document-probe", in: temp)
            .run(cuts: Self.cuts, freshStoreEvery: 1,
                 arguments: { ["save-then-delete", Self.storeFolder($0.mount).path, "20", "\($0.firstValue)"] },
                 read: { backing in
                     // `deleted` holds `gone` when the store is not back; a store that is back is a
                     // loss of the acknowledged deletion (the checker says how many diagrams it has).
                     let file = Self.storeFolder(backing).appendingPathComponent("Store.sqlite")
                     guard FileManager.default.fileExists(atPath: file.path) else { return ["deleted": Self.gone] }
                     let found = try await PowerCuts.probeValues("document-probe", ["power-check", Self.storeFolder(backing).path])
                     print("DocumentStore.deleteDatabase: the store is back after the cut with \(found["venn"] ?? 0) diagrams")
                     return (found["venn"] ?? 0) == 0 ? ["deleted": Self.gone] : [:]
                 })
        #expect(run.losses.isEmpty, "\(run):\n\(run.losses.joined(separator: "\n"))")
        #expect(run.acknowledged > 0, "\(run): the writer acknowledged nothing")
    }
}

/// Where `storage-probe power-writer defaults FOLDER` keeps its suite (PowerWriter.swift).
enum PowerWriterLayout {
    static func defaultsFolder(_ folder: URL) -> URL {
        folder.appendingPathComponent("Preferences/power", isDirectory: true)
    }
}
