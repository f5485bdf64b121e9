import Testing
import Foundation
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
}
