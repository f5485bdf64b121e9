import FileStorageKit
import Foundation
import PlistCodec
import Testing
import TestSupport

/// The lock files (`.<name>.lock`) the file layer makes: deleting a file that is not there writes
/// nothing, and reading never needs to write to the folder.
///
/// The read-only cases run the probe as an unprivileged user: root ignores mode bits.
@Suite struct LockSidecarTests {
    /// The ways to delete a file: `PlistFileStorage.deleteFile`, its `async` view, `PlistDocument.remove`.
    static let deleteAPIs = ["storage", "async", "document"]
    /// The ways to read one: `PlistFileStorage.data`, `PlistDocument.read`, `DefaultsSuite`.
    static let readAPIs = ["storage", "document", "defaults"]

    func delete(_ url: URL, api: String) async throws {
        switch api {
        case "storage": try PlistFileStorage().deleteFile(at: url)
        case "async": try await PlistFileStorage().async.deleteFile(at: url)
        default:
            let document = PlistDocument<Data>(url: url, coding: .init(empty: { Data() }, decode: { $0 }, encode: { new, _ in new }))
            try document.remove()
        }
    }

    @Test(arguments: deleteAPIs)
    func deletingAMissingFileLeavesNoLockFileBehind(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "sidecar-missing")
        try await delete(temp.file("missing.plist"), api: api)
        #expect(try temp.entries() == [], "deleting a missing file wrote to the folder")
    }

    @Test(arguments: deleteAPIs)
    func deletingAFileKeepsItsLockFileForOtherWaiters(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "sidecar-delete")
        let file = temp.file("present.plist")
        try PlistFileStorage().write(["a": 1], to: file)
        try await delete(file, api: api)
        // The lock file stays: a process waiting on it must keep excluding whoever comes next.
        #expect(try temp.entries() == [".present.plist.lock"])
    }

    @Test(.enabled(if: ProcessFaults.canRunUnprivileged,
                   "needs root and setpriv or runuser to run the probe as an unprivileged user (root ignores mode bits)"),
          arguments: deleteAPIs)
    func deletingAMissingFileInAReadOnlyFolderSucceeds(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "sidecar-read-only-delete")
        let folder = temp.folder("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try ProcessFaults.makeReadOnly(folder, files: [], in: temp)
        let child = try await ProcessFaults(program: "storage-probe", deadline: .seconds(60))
            .runUnprivileged(["delete", folder.appendingPathComponent("missing.plist").path, api])
        #expect(child.termination == ProbeExit.success.termination, "\(child.error("\(child.termination!)"))")
        #expect(child.outputLines == ["ok"], "\(child.error("wrong report"))")
        #expect(try temp.entries(in: "read-only") == [])
    }

    @Test(.enabled(if: ProcessFaults.canRunUnprivileged,
                   "needs root and setpriv or runuser to run the probe as an unprivileged user (root ignores mode bits)"),
          arguments: readAPIs)
    func readingInAReadOnlyFolderNeedsNoWriteAccess(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "sidecar-read-only-read")
        let folder = temp.folder("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = folder.appendingPathComponent("settings.plist")
        let payload = Data(repeating: 7, count: 100)
        if api == "defaults" {
            try DefaultsSuite(suiteName: "settings", folder: folder).set(.data(payload), forKey: "payload")
        } else {
            struct Snapshot: Codable { var version: Int; var payload: Data }
            try PlistFileStorage().write(Snapshot(version: 1, payload: payload), to: file)
        }
        // No lock file to lean on: a read that needs one would have to create it.
        for entry in try temp.entries(in: "read-only") where entry.hasSuffix(".lock") {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(entry))
        }
        let before = try temp.entries(in: "read-only")
        try ProcessFaults.makeReadOnly(folder, files: [file], in: temp)
        let child = try await ProcessFaults(program: "storage-probe", deadline: .seconds(60))
            .runUnprivileged(["read", file.path, api])
        #expect(child.termination == ProbeExit.success.termination, "\(child.error("\(child.termination!)"))")
        let expected = api == "document" ? try Data(contentsOf: file).count : payload.count
        #expect(child.outputLines == ["read \(expected) bytes"], "\(child.error("wrong report"))")
        #expect(try temp.entries(in: "read-only") == before)
    }
}
