import Testing
import Foundation
import TestSupport
@testable import FileStorageKit

@Suite struct DurableFileTests {
    @Test func writeKeepsModeAndNewFilesArePrivate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dft-\(UUID().uuidString)")
        try AppDirectories.createFolder(folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("a.plist")
        try DurableFile.write(Data("one".utf8), to: url)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int == 0o600)
        chmod(url.path, 0o640)
        try DurableFile.write(Data("two".utf8), to: url)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int == 0o640)
        #expect(try DurableFile.read(url) == Data("two".utf8))
    }

    @Test func modeIsKeptEvenWhenUnusual() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("a.plist")
        try DurableFile.write(Data("one".utf8), to: url)
        #expect(chmod(url.path, 0o604) == 0)
        try DurableFile.write(Data("two".utf8), to: url)
        #expect(permissionBits(url) == 0o604)
    }

    @Test func noTemporaryFilesLeftAfterSuccess() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("a.plist")
        for i in 0..<5 { try DurableFile.write(Data("version \(i)".utf8), to: url) }
        #expect(try temp.entries() == ["a.plist"])
        #expect(try DurableFile.read(url) == Data("version 4".utf8))
    }

    @Test func writeIntoAMissingFolderIsNotFoundAndLeavesNothing() throws {
        let temp = try TemporaryFolder()
        let url = temp.folder("missing").appendingPathComponent("a.plist")
        #expect(throws: FileStorageError.notFound(url)) { try DurableFile.write(Data("x".utf8), to: url) }
        #expect(try temp.entries() == [])
    }

    @Test func failedRenameLeavesNoTemporaryFileAndTheTargetIntact() throws {
        let temp = try TemporaryFolder()
        // The target is a non-empty folder: the temporary file is written and flushed, then the rename fails.
        let url = temp.folder("occupied")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: url.appendingPathComponent("inside"))
        do {
            try DurableFile.write(Data("x".utf8), to: url)
            Issue.record("a write over a folder succeeded")
        } catch {
            guard case .io(let failed, let operation, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(failed == url)
            #expect(operation == "rename")
        }
        #expect(try temp.entries() == ["occupied"])
        #expect(try temp.entries(in: "occupied") == ["inside"])
    }

    @Test(arguments: [false, true])
    func symlinkInTheSameFolderIsWrittenThrough(absolute: Bool) throws {
        let temp = try TemporaryFolder()
        let real = temp.file("real.plist")
        let link = temp.file("link.plist")
        try DurableFile.write(Data("old".utf8), to: real)
        #expect(chmod(real.path, 0o640) == 0)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: absolute ? real.path : "real.plist")
        try DurableFile.write(Data("new".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == (absolute ? real.path : "real.plist"))
        #expect(try DurableFile.read(real) == Data("new".utf8))
        #expect(try DurableFile.read(link) == Data("new".utf8))
        #expect(permissionBits(real) == 0o640)
        #expect(try temp.entries() == ["link.plist", "real.plist"])
    }

    @Test func chainOfSymlinksInTheSameFolderIsFollowed() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: temp.file("a").path, withDestinationPath: "b")
        try FileManager.default.createSymbolicLink(atPath: temp.file("b").path, withDestinationPath: "./c")
        try DurableFile.write(Data("through".utf8), to: temp.file("a"))
        #expect(try DurableFile.read(temp.file("c")) == Data("through".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: temp.file("a").path) == "b")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: temp.file("b").path) == "./c")
        #expect(permissionBits(temp.file("c")) == 0o600)
    }

    @Test func symlinkLoopIsATypedError() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: temp.file("a").path, withDestinationPath: "b")
        try FileManager.default.createSymbolicLink(atPath: temp.file("b").path, withDestinationPath: "a")
        #expect(throws: FileStorageError.self) { try DurableFile.write(Data("x".utf8), to: temp.file("a")) }
        #expect(try temp.entries() == ["a", "b"])
    }

    @Test(arguments: ["../other/target.plist", "sub/target.plist", "ABSOLUTE"])
    func symlinkOutOfTheFolderIsRefused(destination: String) throws {
        let temp = try TemporaryFolder()
        let folder = temp.folder("here")
        let other = temp.folder("other")
        let sub = folder.appendingPathComponent("sub", isDirectory: true)
        for f in [folder, other, sub] { try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true) }
        let targets = [other.appendingPathComponent("target.plist"), sub.appendingPathComponent("target.plist")]
        for t in targets { try Data("untouched".utf8).write(to: t) }
        let written = destination == "ABSOLUTE" ? other.appendingPathComponent("target.plist").path : destination
        let link = folder.appendingPathComponent("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: written)

        #expect(throws: FileStorageError.symlinkOutsideFolder(link, destination: written)) {
            try DurableFile.write(Data("new".utf8), to: link)
        }
        for t in targets { #expect(try DurableFile.read(t) == Data("untouched".utf8)) }
        #expect(try temp.entries(in: "here") == ["link.plist", "sub"])
        #expect(try temp.entries(in: "other") == ["target.plist"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == written)
    }

    @Test func readingAMissingFileIsNotFound() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("absent.plist")
        #expect(throws: FileStorageError.notFound(url)) { try DurableFile.read(url) }
        #expect(try DurableFile.readIfPresent(url) == nil)
    }

    @Test func largeFilesRoundTrip() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("big.bin")
        // Longer than the 64 KiB read buffer and not a multiple of it; a fixed pattern, no randomness.
        let bytes = Data((0..<(300 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        try DurableFile.write(bytes, to: url)
        #expect(try DurableFile.read(url) == bytes)
        try DurableFile.write(Data(), to: url)
        #expect(try DurableFile.read(url) == Data())
    }

    @Test func removeIsIdempotent() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("gone.plist")
        try DurableFile.write(Data("x".utf8), to: url)
        try DurableFile.remove(url)
        #expect(try temp.entries() == [])
        try DurableFile.remove(url)
    }
}
