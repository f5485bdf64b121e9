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
        var cuts = try PowerCuts(label: "broken writer \(mode)", writer: "storage-probe", in: temp)
        cuts.evidenceFolder = nil
        let run = try await cuts.run(cuts: Self.cutsToCatch, stopAtFirstLoss: true,
                 arguments: { ["power-writer", mode, $0.mount.path, "\($0.firstValue)"] },
                 read: StoreReaders.perKeyFiles)
        #expect(!run.losses.isEmpty, "\(run): the harness did not catch a writer that skips a flush")
    }

    @Test("a writer whose writes miss the mount (it detaches it first) is caught, and said to have written beside it, on another file system")
    func writesBesideTheMountAreCaught() async throws {
        let temp = try TemporaryFolder(prefix: "power-beside")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        var cuts = try PowerCuts(label: "writer beside the mount", writer: "storage-probe", in: temp)
        let evidence = temp.folder("evidence")
        cuts.evidenceFolder = evidence
        let run = try await cuts.run(cuts: 1, stopAtFirstLoss: true,
                                     arguments: { ["power-writer", "detach-first", $0.mount.path, "\($0.firstValue)"] },
                                     read: StoreReaders.perKeyFiles)
        #expect(run.losses.count == 1, "\(run): the harness did not catch writes that missed lazyfs")
        #expect(run.losses.first?.contains("the writer wrote beside lazyfs") == true, "\(run.losses)")
        #expect(run.losses.first?.contains("the mount was not lazyfs's any more when the power was cut") == true, "\(run.losses)")
        // The loss kept its evidence: lazyfs's trace from the load to its end (a stop, not a power cut:
        // the detached mount's last user was gone, which lazyfs sees as an unmount), and the writer's
        // acknowledgements.
        let kept = try FileManager.default.contentsOfDirectory(at: evidence, includingPropertiesForKeys: nil)
        try #require(kept.count == 1, "\(kept)")
        let trace = try String(contentsOf: kept[0].appendingPathComponent("lazyfs-trace.log"), encoding: .utf8)
        #expect(trace.contains(" loaded ") && trace.contains(" stop\ndurable folder 1:"), "\(trace)")
        let writer = try String(contentsOf: kept[0].appendingPathComponent("writer-output.log"), encoding: .utf8)
        #expect(writer.contains("acked k0 "), "\(writer)")
    }
}
