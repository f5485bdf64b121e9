import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

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

    @Test("a late actor on an earlier cut's mount point (as fusermount3's auto_unmount helper can be) cannot reach a later cut's mount")
    func anEarlierCutsMountPointIsNeverUsedAgain() async throws {
        let temp = try TemporaryFolder(prefix: "power-late")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let cuts = try PowerCuts(label: "late detacher", writer: "storage-probe", in: temp)
        // Before each cut from the second on, a task plays the helper of the cut before, run late: it
        // waits up to 3 s for a FUSE mount at that cut's mount point and detaches it by name
        // (umount2 MNT_DETACH, as the helper does). Were the point used again, it would detach this
        // cut's live mount under the writer.
        let state = LateActorState()
        var lateActors: [Task<Void, Never>] = []
        let run = try await cuts.run(cuts: 5, arguments: { cut in
            if let earlier = state.previous.withLock({ $0 }) {
                lateActors.append(Task.detached {
                    let deadline = ContinuousClock.now + .seconds(3)
                    while ContinuousClock.now < deadline {
                        if PowerCuts.mounts(under: earlier).contains(earlier.standardizedFileURL.path) {
                            try? await Task.sleep(for: .milliseconds(5))
                            if umount2(earlier.path, Int32(MNT_DETACH)) == 0 { state.detached.withLock { $0 += 1 } }
                            return
                        }
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                })
            }
            state.previous.withLock { $0 = cut.mount }
            return ["power-writer", "durable", cut.mount.path, "\(cut.firstValue)"]
        }, read: StoreReaders.perKeyFiles)
        for actor in lateActors { await actor.value }
        #expect(run.losses.isEmpty, "\(run):\n\(run.losses.joined(separator: "\n"))")
        #expect(state.detached.withLock { $0 } == 0, "a late actor found a mount at an earlier cut's mount point and detached it")
    }
}

/// What the late actors of `anEarlierCutsMountPointIsNeverUsedAgain` share: the last cut's mount point,
/// and how many mounts they detached.
private final class LateActorState: Sendable {
    let previous = Mutex<URL?>(nil)
    let detached = Mutex(0)
}
