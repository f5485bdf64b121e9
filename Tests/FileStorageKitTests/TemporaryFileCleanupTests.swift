import Foundation
import Testing
import FileStorageKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 11, item 6: a temporary file nobody holds (its writer was killed) is removed by the next
/// write in its folder; one a live writer holds is never touched. (`CrashTests` kills real writers.)
@Suite struct TemporaryFileCleanupTests {
    /// Makes a temporary file as a killed writer leaves it: the right shape, half its bytes, no lock.
    func abandonedTemporary(for name: String, in temp: TemporaryFolder, pid: Int = 4_242) throws -> URL {
        let url = temp.file(".\(name).tmp-\(pid)-\(UInt32.random(in: 0...UInt32.max))")
        try Data("<?xml version=\"1.0\"".utf8).write(to: url)
        return url
    }

    @Test func theNextWriteRemovesAbandonedTemporaryFilesOfEveryFileInTheFolder() throws {
        let temp = try TemporaryFolder(prefix: "cleanup")
        let own = try abandonedTemporary(for: "settings.plist", in: temp)
        let other = try abandonedTemporary(for: "other.plist", in: temp, pid: 1)
        try Data("keep".utf8).write(to: temp.file(".hidden-but-not-ours"))
        try DurableFile.write(Data("v1".utf8), to: temp.file("settings.plist"))
        #expect(!FileManager.default.fileExists(atPath: own.path))
        #expect(!FileManager.default.fileExists(atPath: other.path))
        #expect(try temp.entries().sorted() == [".hidden-but-not-ours", "settings.plist"])
    }

    @Test func aTemporaryFileHeldByAnotherDescriptorSurvives() throws {
        let temp = try TemporaryFolder(prefix: "cleanup-held")
        let held = try abandonedTemporary(for: "settings.plist", in: temp)
        // flock belongs to the open file description: this descriptor is a live writer to the cleaner.
        let fd = open(held.path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)
        try DurableFile.write(Data("v1".utf8), to: temp.file("settings.plist"))
        #expect(FileManager.default.fileExists(atPath: held.path))
        flock(fd, LOCK_UN)
        try DurableFile.write(Data("v2".utf8), to: temp.file("settings.plist"))
        #expect(!FileManager.default.fileExists(atPath: held.path))
    }

    /// A real process holding the lock (util-linux `flock`, as a writer mid-write would) keeps its file.
    /// `--close`: only `flock` itself holds the lock, so killing it is killing the writer.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock"), "needs util-linux flock"))
    func aTemporaryFileHeldByALiveProcessSurvives() async throws {
        let temp = try TemporaryFolder(prefix: "cleanup-process")
        let held = try abandonedTemporary(for: "settings.plist", in: temp)
        let holder = try ChildProcess.start(URL(fileURLWithPath: "/usr/bin/flock"),
                                            ["--exclusive", "--close", held.path, "/bin/sh", "-c", "echo locked; exec sleep 30"])
        _ = try await holder.waitForLine(deadline: .now + .seconds(30)) { $0 == "locked" }
        try DurableFile.write(Data("v1".utf8), to: temp.file("settings.plist"))
        #expect(FileManager.default.fileExists(atPath: held.path), "a live writer's temporary file was removed")
        holder.kill(SIGKILL)
        try await holder.waitForExit(deadline: .now + .seconds(30))
        try DurableFile.write(Data("v2".utf8), to: temp.file("settings.plist"))
        #expect(!FileManager.default.fileExists(atPath: held.path), "the killed holder's file stays")
    }

    /// Many writers of one folder at once: none of them loses its temporary file to another's cleanup.
    @Test func concurrentWritersNeverRemoveEachOthersTemporaryFiles() async throws {
        let temp = try TemporaryFolder(prefix: "cleanup-concurrent")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for round in 0..<40 {
                        try DurableFile.write(Data("\(writer)-\(round)".utf8), to: temp.file("file-\(writer).plist"))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try temp.entries().sorted() == (0..<8).map { "file-\($0).plist" }.sorted())
    }
}
