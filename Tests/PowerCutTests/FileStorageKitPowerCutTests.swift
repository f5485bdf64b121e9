import Foundation
import Testing
import TestSupport

/// FileStorageKit's durable writes across power cuts: every write a call returned from survives.
///
/// `swift test` runs `defaultCuts` cuts per store (about 6 s each on the 2-core machines); `ci/test`
/// sets `TOOLKIT_POWER_CUTS=100` (20–25 s each), and `ci/power-campaign` 2,000.
@Suite(.serialized, .enabled(if: PowerCuts.isAvailable, "power-cut tests need /dev/fuse and fusermount3 (Docs/LazyFS.md)"))
struct FileStorageKitPowerCutTests {
    static let defaultCuts = 30

    @Test("DurableFile.write: every acknowledged write survives a power cut")
    func durableFile() async throws {
        try await expectNoLoss(label: "DurableFile", api: "durable", read: StoreReaders.perKeyFiles)
    }

    @Test("PlistFileStorage.update: every acknowledged write survives a power cut")
    func plistFileStorage() async throws {
        try await expectNoLoss(label: "PlistFileStorage", api: "storage", read: StoreReaders.plistFile)
    }

    @Test("DefaultsSuite.set in a folder its first write creates: every acknowledged write survives a power cut")
    func defaultsSuite() async throws {
        try await expectNoLoss(label: "DefaultsSuite", api: "defaults", read: StoreReaders.defaultsSuite)
    }

    private func expectNoLoss(label: String, api: String, read: (URL) throws -> [String: Int]) async throws {
        let temp = try TemporaryFolder(prefix: "power-\(api)")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let run = try await PowerCuts(label: label, writer: "storage-probe", in: temp)
            .run(cuts: PowerCuts.cutCount(default: Self.defaultCuts),
                 arguments: { ["power-writer", api, $0.mount.path, "\($0.firstValue)"] }, read: read)
        #expect(run.losses.isEmpty, "\(run):\n\(run.losses.joined(separator: "\n"))")
        #expect(run.acknowledged > 0, "\(run): the writer acknowledged nothing")
    }
}
