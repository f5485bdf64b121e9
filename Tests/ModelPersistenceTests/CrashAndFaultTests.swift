import Foundation
import ModelPersistence
import PlistCodec
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `@PersistedModel` file under the fault harness every file store's tests share (`ProcessFaults`):
/// a setter killed at random moments, a full disk, a read-only folder.
@Suite("ModelPersistence: crashes and faults", .serialized)
struct CrashAndFaultTests {
    /// The probe's model file in `folder`, as a dictionary, read without any model.
    func stored(_ folder: URL) throws -> PlistDictionary? {
        let url = folder.appendingPathComponent("ProbeModel.storage.plist")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try storedDictionary(url)
    }

    /// 100 times, a fresh `model-probe set-loop` sets 4 KB versions of one property as fast as it
    /// can and is killed at a random moment: the file always decodes, holds one whole version, never
    /// an older one than reported, and the next writer removes what a killed write left.
    @Test func aSetterKilledAtAnyMomentLeavesOneWholeVersion() async throws {
        let faults = try ProcessFaults(program: "model-probe", deadline: .seconds(60))
        let temp = try TemporaryFolder(prefix: "model-crash")
        var last = 0
        try await faults.killAtRandomMoments(label: "ModelPersistence", trials: 100, maxPause: .milliseconds(20),
                                             arguments: { _ in ["set-loop", temp.url.path] }) { kill in
            let reported = try #require(kill.readyNumber, "\(kill)")
            let document = try #require(try stored(temp.url), "\(kill): no file")
            let text = try #require(document["a"]?.stringValue, "\(kill): no value")
            let version = try #require(LoopValue.version(of: text), "\(kill): a torn or mixed value")
            #expect(version >= reported && version >= last, "\(kill): version \(version) after \(reported), \(last)")
            last = version
            let leftovers = try temp.entries().filter { $0.contains(".tmp-") }
            #expect(leftovers.count <= 1, "\(kill): temporary files of earlier writers: \(leftovers)")
        }
        PersistenceLocation.$folder.withValue(temp.url) {
            let model = MultiProcessTests.ProbeModel()
            model.b = "after the kills"
            #expect(LoopValue.version(of: model.a) == last)
        }
        #expect(try temp.entries().filter { $0.contains(".tmp-") }.isEmpty, "the next write removes a killed writer's file")
    }

    @Test func aFullDiskIsReportedAndTheFileKeepsItsLastVersion() async throws {
        let temp = try TemporaryFolder(prefix: "model-disk-full")
        PersistenceLocation.$folder.withValue(temp.url) { MultiProcessTests.ProbeModel().a = "previous" }
        let before = try Data(contentsOf: temp.file("ProbeModel.storage.plist"))
        let child = try await ProcessFaults(program: "model-probe", deadline: .seconds(60))
            .runWithFileSizeLimit(8192, ["set-a", temp.url.path, String(repeating: "x", count: 80_000)])
        #expect(child.termination == .exited(1), "\(child.error("\(child.termination!)"))")
        #expect(child.standardError.contains("disk"), "\(child.standardError)")
        #expect(try Data(contentsOf: temp.file("ProbeModel.storage.plist")) == before)
        #expect(try temp.entries().filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test(.enabled(if: ProcessFaults.canRunUnprivileged, "needs root and setpriv or runuser (root ignores mode bits)"))
    func aReadOnlyFolderIsReportedAndTheFileIsUnchanged() async throws {
        let temp = try TemporaryFolder(prefix: "model-read-only")
        let folder = temp.folder("models")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        PersistenceLocation.$folder.withValue(folder) { MultiProcessTests.ProbeModel().a = "previous" }
        let file = folder.appendingPathComponent("ProbeModel.storage.plist")
        let before = try Data(contentsOf: file)
        try ProcessFaults.makeReadOnly(folder, files: [file, folder.appendingPathComponent(".ProbeModel.storage.plist.lock")], in: temp)
        let child = try await ProcessFaults(program: "model-probe", deadline: .seconds(60)).runUnprivileged(["set-a", folder.path, "new"])
        #expect(child.termination == .exited(1), "\(child.error("\(child.termination!)"))")
        #expect(child.standardError.lowercased().contains("permission"), "\(child.standardError)")
        #expect(try Data(contentsOf: file) == before)
    }
}
