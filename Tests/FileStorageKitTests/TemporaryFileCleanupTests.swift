import Foundation
import Testing
@testable import FileStorageKit
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

    /// Only DurableFile's exact shape, `.<name>.tmp-<digits>-<digits>`, is taken: other programs'
    /// files with similar names may belong to a writer that holds no lock.
    @Test func filesOfOtherProgramsWithSimilarNamesSurvive() throws {
        let temp = try TemporaryFolder(prefix: "cleanup-names")
        let others = [".notes.tmp-draft", ".settings.plist.tmp-", ".settings.plist.tmp-12", ".settings.plist.tmp-12-",
                      ".settings.plist.tmp-12-34b", ".settings.plist.tmp--34", ".tmp-12-34", "settings.plist.tmp-12-34",
                      ".settings.plist.tmp-12-34.bak", ".settings.plist.TMP-12-34"]
        for name in others { try Data("someone else's".utf8).write(to: temp.file(name)) }
        let ours = try abandonedTemporary(for: "a.tmp-1-2", in: temp)   // a name that itself looks like one
        try DurableFile.write(Data("v1".utf8), to: temp.file("settings.plist"))
        #expect(!FileManager.default.fileExists(atPath: ours.path))
        #expect(try temp.entries().sorted() == (others + ["settings.plist"]).sorted())
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
    /// `--close`: only `flock` itself holds the lock, so killing it is killing the writer. Its child
    /// lives as long as `flock` does (no fixed time a loaded machine could outlast) and no longer.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock"), "needs util-linux flock"))
    func aTemporaryFileHeldByALiveProcessSurvives() async throws {
        let temp = try TemporaryFolder(prefix: "cleanup-process")
        let held = try abandonedTemporary(for: "settings.plist", in: temp)
        let holder = try ChildProcess.start(URL(fileURLWithPath: "/usr/bin/flock"),
                                            ["--exclusive", "--close", held.path, "/bin/sh", "-c", "echo locked; while kill -0 $PPID 2>/dev/null; do sleep 0.1; done"])
        _ = try await holder.waitForLine(deadline: .now + .seconds(180)) { $0 == "locked" }
        try DurableFile.write(Data("v1".utf8), to: temp.file("settings.plist"))
        #expect(FileManager.default.fileExists(atPath: held.path), "a live writer's temporary file was removed")
        holder.kill(SIGKILL)
        try await holder.waitForExit(deadline: .now + .seconds(180))
        try DurableFile.write(Data("v2".utf8), to: temp.file("settings.plist"))
        #expect(!FileManager.default.fileExists(atPath: held.path), "the killed holder's file stays")
    }

    /// Real writers in other processes, mid-write most of the time, while this process and each of
    /// them clean the folder after every write: a writer whose temporary file was taken would fail
    /// its rename (`.notFound`) and exit, so every one must still be running at the end.
    @Test func liveWritersInOtherProcessesKeepTheirTemporaryFiles() async throws {
        let temp = try TemporaryFolder(prefix: "cleanup-live")
        let probe = try ChildProcess.storageProbe()
        let names = ["a.plist", "b.plist"]
        let writers = try names.map { try ChildProcess.start(probe, ["write-loop", temp.file($0).path, "binary"]) }
        defer { writers.forEach { $0.kill(SIGKILL) } }
        for writer in writers { _ = try await writer.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("ready ") } }

        var sawLiveTemporary = 0
        let deadline = ContinuousClock.now + .seconds(60)
        var writes = 0
        // Enough writes that this process's cleanups meet the writers' temporary files many times.
        while (writes < 100 || sawLiveTemporary < 20) && ContinuousClock.now < deadline {
            try DurableFile.write(Data("version \(writes)".utf8), to: temp.file("c.plist"))
            writes += 1
            let live = try temp.entries().filter { name in
                zip(names, writers).contains { name.hasPrefix(".\($0.0).tmp-\($0.1.pid)-") }
            }
            if !live.isEmpty { sawLiveTemporary += 1 }
            for writer in writers {
                writer.poll()
                try #require(writer.termination == nil, "\(writer.error("stopped: its temporary file was taken?"))")
            }
        }
        #expect(sawLiveTemporary >= 20, "the writers' temporary files were seen after only \(sawLiveTemporary) of \(writes) writes")
        for writer in writers {
            writer.kill(SIGKILL)
            #expect(try await writer.waitForExit(deadline: .now + .seconds(180)) == .signaled(SIGKILL))
        }
        // The killed writers' last temporary files (if any) go with the next write.
        try DurableFile.write(Data("last".utf8), to: temp.file("c.plist"))
        #expect(try temp.entries().filter { TemporaryFiles.isTemporaryName($0) } == [])
        print("TemporaryFileCleanupTests: \(writes) writes beside 2 live writers; their temporary files seen after \(sawLiveTemporary)")
    }

    /// A folder of more than 256 entries is listed at most once a second by each process, so its
    /// writes stay cheap: a write right after one that listed it leaves a new leftover alone, and a
    /// write a second later removes it.
    @Test func aLargeFolderIsListedAtMostOnceASecond() async throws {
        let temp = try TemporaryFolder(prefix: "cleanup-large")
        for i in 0...TemporaryFiles.largeFolderEntries {
            try #require(FileManager.default.createFile(atPath: temp.file("entry-\(i)").path, contents: nil))
        }
        let target = temp.file("settings.plist")
        let clock = ContinuousClock()
        let first = try abandonedTemporary(for: "settings.plist", in: temp)
        let listed = clock.now
        try DurableFile.write(Data("v1".utf8), to: target)
        #expect(!FileManager.default.fileExists(atPath: first.path), "the first write in the folder lists it")

        let second = try abandonedTemporary(for: "settings.plist", in: temp)
        try DurableFile.write(Data("v2".utf8), to: target)
        if clock.now - listed < .milliseconds(900) {
            #expect(FileManager.default.fileExists(atPath: second.path), "a large folder was listed twice within a second")
        } else {
            print("TemporaryFileCleanupTests: the machine is too slow to check the skipped listing (\(clock.now - listed))")
        }
        let deadline = clock.now + .seconds(30)
        var writes = 2
        while FileManager.default.fileExists(atPath: second.path) && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            try DurableFile.write(Data("v\(writes)".utf8), to: target)
            writes += 1
        }
        #expect(!FileManager.default.fileExists(atPath: second.path), "no write listed the large folder again")
        #expect(clock.now - listed >= TemporaryFiles.largeFolderInterval)
    }

    /// A small folder is listed on every write, however close together.
    @Test func aSmallFolderIsListedOnEveryWrite() throws {
        let temp = try TemporaryFolder(prefix: "cleanup-small")
        for i in 0..<10 { try #require(FileManager.default.createFile(atPath: temp.file("entry-\(i)").path, contents: nil)) }
        for round in 0..<20 {
            let leftover = try abandonedTemporary(for: "settings.plist", in: temp)
            try DurableFile.write(Data("v\(round)".utf8), to: temp.file("settings.plist"))
            #expect(!FileManager.default.fileExists(atPath: leftover.path), "round \(round)")
        }
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
