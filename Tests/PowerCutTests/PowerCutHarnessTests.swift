import Foundation
import Testing
import TestSupport

/// The harness proves itself first: writers that skip a flush `DurableFile` makes must lose an
/// acknowledged write within a few cuts, or a green store test would mean nothing.
@Suite(.serialized, .enabled(if: PowerCuts.isAvailable, "power-cut tests need /dev/fuse and fusermount3 (Docs/LazyFS.md)"))
struct PowerCutHarnessTests {
    /// Cuts a broken writer may survive before the harness must have caught it.
    static let cutsToCatch = 10

    @Test("a writer that skips a flush DurableFile makes (the folder's after the rename, the file's before it) is caught",
          arguments: ["no-folder-sync", "no-file-sync"])
    func brokenWriterIsCaught(mode: String) async throws {
        let temp = try TemporaryFolder(prefix: "power-\(mode)")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let run = try await PowerCuts(label: "broken writer \(mode)", writer: "storage-probe", in: temp)
            .run(cuts: Self.cutsToCatch, stopAtFirstLoss: true,
                 arguments: { ["power-writer", mode, $0.mount.path, "\($0.firstValue)"] },
                 read: StoreReaders.perKeyFiles)
        #expect(!run.losses.isEmpty, "\(run): the harness did not catch a writer that skips a flush")
    }
}
