import Foundation
import Testing
import FileStorageKit
import PlistCodec
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 3, item 3: bad input and faults give typed errors and leave the file untouched.
///
/// Disk full and read-only folders need a child process: `RLIMIT_FSIZE` would limit the test runner
/// itself, and root (as CI runs) ignores mode bits. Corrupt files and symbolic links are tested in process.
@Suite struct FaultTests {
    /// The three write paths a probe can take: `PlistFileStorage.write`, `DurableFile.write`, `DefaultsSuite.set`.
    static let writeAPIs = ["storage", "durable", "defaults"]

    struct Settings: Codable, Equatable {
        var counter: Int
        var name: String
    }

    /// Writes a first version of `name` in `folder` through `api`'s own type and returns its bytes.
    func writePreviousVersion(_ name: String, in folder: URL, api: String) throws -> Data {
        let file = folder.appendingPathComponent(name)
        if api == "defaults" {
            let suite = DefaultsSuite(suiteName: file.deletingPathExtension().lastPathComponent, folder: folder)
            try suite.set("the previous version", forKey: "payload")
        } else {
            try PlistFileStorage().write(Settings(counter: 1, name: "the previous version"), to: file)
        }
        return try Data(contentsOf: file)
    }

    // MARK: Disk full

    @Test(arguments: writeAPIs)
    func fileSizeLimitIsDiskFullAndKeepsThePreviousVersion(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "fault-disk-full")
        let folder = temp.url
        let file = folder.appendingPathComponent("limited.plist")
        let previous = try writePreviousVersion("limited.plist", in: folder, api: api)
        let entriesBefore = try temp.entries()

        // The probe tries to write about 80 KB under an 8 KB file-size limit, with SIGXFSZ ignored: EFBIG.
        let child = try await ProcessFaults(program: "storage-probe", deadline: .seconds(60))
            .runWithFileSizeLimit(8192, ["write-large", file.path, "8192", api])
        #expect(child.termination == ProbeExit.diskFull.termination, "\(child.error("\(child.termination!)"))")
        #expect(child.outputLines == ["error: diskFull"], "\(child.error("wrong report"))")
        #expect(try Data(contentsOf: file) == previous, "the previous version changed")
        // The half-written temporary file is removed, not left to fill the disk further.
        #expect(try temp.entries() == entriesBefore)
    }

    // MARK: Read-only folder

    @Test(.enabled(if: ProcessFaults.canRunUnprivileged,
                   "needs root and setpriv or runuser to run the probe as an unprivileged user (root ignores mode bits)"),
          arguments: writeAPIs)
    func readOnlyFolderIsPermissionDenied(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "fault-read-only")
        let folder = temp.folder("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = folder.appendingPathComponent("locked.plist")
        let previous = try writePreviousVersion("locked.plist", in: folder, api: api)
        let entriesBefore = try temp.entries(in: "read-only")
        try ProcessFaults.makeReadOnly(folder, files: [file], in: temp)

        let child = try await ProcessFaults(program: "storage-probe", deadline: .seconds(60))
            .runUnprivileged(["write-readonly", file.path, api])
        #expect(child.termination == ProbeExit.permissionDenied.termination, "\(child.error("\(child.termination!)"))")
        #expect(child.outputLines == ["error: permissionDenied"], "\(child.error("wrong report"))")
        #expect(try Data(contentsOf: file) == previous, "the file changed")
        #expect(try temp.entries(in: "read-only") == entriesBefore)
    }

    // MARK: Corrupt and truncated files

    enum BadFile: String, CaseIterable, Sendable {
        case garbage, truncatedBinary, truncatedXML

        var bytes: Data {
            get throws {
                switch self {
                case .garbage:
                    return Data([0x00, 0xFF, 0xFE, 0x13, 0x37] + (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) })
                case .truncatedBinary, .truncatedXML:
                    var encoder = PlistEncoder()
                    encoder.outputFormat = self == .truncatedBinary ? .binary : .xml
                    let whole = try encoder.encode(Settings(counter: 41, name: String(repeating: "settings ", count: 20)))
                    return whole.prefix(whole.count / 2)
                }
            }
        }
    }

    /// Runs `body`, which must throw `FileStorageError.corrupt`.
    func expectCorrupt(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(what) did not throw", sourceLocation: sourceLocation)
        } catch let error as FileStorageError {
            guard case .corrupt = error else {
                Issue.record("\(what) threw \(error), not .corrupt", sourceLocation: sourceLocation)
                return
            }
        } catch {
            Issue.record("\(what) threw \(error), not a FileStorageError", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: BadFile.allCases)
    func badFileIsCorruptAndLeftUntouched(kind: BadFile) throws {
        let temp = try TemporaryFolder(prefix: "fault-corrupt")
        let folder = temp.url
        let file = temp.file("bad.plist")
        let bytes = try kind.bytes
        try bytes.write(to: file)

        let storage = PlistFileStorage()
        expectCorrupt("PlistFileStorage.data(for:)") { let _: Settings = try storage.data(for: file) }
        expectCorrupt("PlistFileStorage.update") {
            try storage.update(at: file, default: Settings(counter: 0, name: "")) { $0.counter += 1 }
        }
        #expect(try Data(contentsOf: file) == bytes)

        let suite = DefaultsSuite(suiteName: "bad", folder: folder)
        expectCorrupt("DefaultsSuite.set") { try suite.set(1, forKey: "counter") }
        expectCorrupt("DefaultsSuite.reload()") { try suite.reload() }
        if case .corrupt? = suite.lastLoadError {} else {
            Issue.record("lastLoadError is \(String(describing: suite.lastLoadError)), not .corrupt")
        }
        #expect(suite.object(forKey: "counter") == nil)
        #expect(try Data(contentsOf: file) == bytes)
        #expect(try temp.entries() == [".bad.plist.lock", "bad.plist"], "no temporary file is left behind")
    }

    // MARK: Symbolic links

    @Test(arguments: ["absolute", "relative"])
    func symlinkOutsideTheFolderIsRefused(style: String) throws {
        let temp = try TemporaryFolder(prefix: "fault-symlink-outside")
        let folder = temp.folder("store")
        let elsewhere = temp.folder("elsewhere")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let target = elsewhere.appendingPathComponent("target.plist")
        let original = Data("not to be touched".utf8)
        try original.write(to: target)
        let link = folder.appendingPathComponent("link.plist")
        let destination = style == "absolute" ? target.path : "../elsewhere/target.plist"
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: destination)

        let attempts: [(String, () throws -> Void)] = [
            ("PlistFileStorage.write", { try PlistFileStorage().write(Settings(counter: 2, name: "new"), to: link) }),
            ("DurableFile.write", { try DurableFile.write(Data("new".utf8), to: link) }),
        ]
        for (what, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(what) through a link to \(destination) did not throw")
            } catch let error as FileStorageError {
                guard case .symlinkOutsideFolder(_, let reported) = error else {
                    Issue.record("\(what) threw \(error), not .symlinkOutsideFolder")
                    continue
                }
                #expect(reported == destination)
            }
        }
        #expect(try Data(contentsOf: target) == original)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == destination)
        #expect(try temp.entries(in: "elsewhere") == ["target.plist"])
    }

    @Test func symlinkInsideTheFolderIsWrittenThrough() throws {
        let temp = try TemporaryFolder(prefix: "fault-symlink-inside")
        let real = temp.file("real.plist")
        let link = temp.file("link.plist")
        try PlistFileStorage().write(Settings(counter: 1, name: "old"), to: real)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.plist")

        let written = Settings(counter: 2, name: "through the link")
        try PlistFileStorage().write(written, to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.plist")
        let loaded: Settings = try PlistFileStorage().data(for: real)
        #expect(loaded == written)

        try DurableFile.write(Data("raw bytes".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.plist")
        #expect(try Data(contentsOf: real) == Data("raw bytes".utf8))
        #expect(try temp.entries().filter { !$0.hasSuffix(".lock") } == ["link.plist", "real.plist"])
    }
}
