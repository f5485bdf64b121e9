// Black-box tests of the promises in FileStorageKit's DocC articles (DurableWrites, AppDirectoriesGuide,
// Locks, FileStorageErrors, DefaultsSuiteGuide), written from the articles and the public API only.
// Each test quotes the sentence it checks. A promise the toolkit does not keep is wrapped in
// `withKnownIssue("DOC-PROMISE-FAILS: ...")`.
import Foundation
import Testing
import FileStorageKit
import PlistCodec
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Helpers

/// Holds `FileLock`'s exclusive lock for a file on a thread of its own until `unlock()`.
final class DocPromiseLockHolder: @unchecked Sendable {
    private let acquired = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var released = false

    init(_ url: URL) throws {
        let thread = Thread { [acquired, release, done] in
            _ = try? FileLock.withExclusiveLock(for: url, timeout: .seconds(5)) {
                acquired.signal()
                release.wait()
            }
            done.signal()
        }
        thread.start()
        guard acquired.wait(timeout: .now() + 5) == .success else {
            throw ChildProcessError(description: "could not take the lock for \(url.path)")
        }
    }

    func unlock() {
        guard !released else { return }
        released = true
        release.signal()
        done.wait()
    }

    deinit { if !released { release.signal() } }
}

enum DocPromiseFS {
    static func inode(_ url: URL) -> UInt64? {
        var st = stat()
        guard lstat(url.path, &st) == 0 else { return nil }
        return UInt64(st.st_ino)
    }

    static func exists(_ url: URL) -> Bool {
        var st = stat()
        return lstat(url.path, &st) == 0
    }

    static func mode(_ url: URL) -> Int? {
        var st = stat()
        guard lstat(url.path, &st) == 0 else { return nil }
        return Int(st.st_mode) & 0o7777
    }

    static func bytes(_ url: URL) -> Data? { FileManager.default.contents(atPath: url.path) }

    static func plist(_ url: URL) -> Any? {
        guard let data = bytes(url) else { return nil }
        return try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    static func format(_ url: URL) -> PropertyListSerialization.PropertyListFormat? {
        guard let data = bytes(url) else { return nil }
        var format = PropertyListSerialization.PropertyListFormat.binary
        guard (try? PropertyListSerialization.propertyList(from: data, options: [], format: &format)) != nil else { return nil }
        return format
    }

    static func temporaryFiles(in folder: URL, of name: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix(".\(name).tmp-") }
    }

    static func symlink(_ link: URL, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: destination)
    }
}

struct DocPromiseCounter: Codable, Equatable { var count: Int }

/// A value whose encoding always fails.
struct DocPromiseUnencodable: Codable, Equatable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "refuses to encode"))
    }
    init() {}
    init(from decoder: any Decoder) throws {}
}

@Suite struct DocPromiseTests {

// MARK: - DurableWrites.md

@Suite struct DurableWrites {
    // DurableWrites.md: "If `url` is a symbolic link whose destination is in the same folder
    // (following up to 8 links), the write goes to that destination."
    @Test func sameFolderSymlinkWritesToDestination() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let target = temp.file("real.bin")
        try DurableFile.write(Data("old".utf8), to: target)
        let link1 = temp.file("link1"), link2 = temp.file("link2")
        try DocPromiseFS.symlink(link1, to: "real.bin")
        try DocPromiseFS.symlink(link2, to: "link1")          // a chain of two links
        try DurableFile.write(Data("new".utf8), to: link2)
        #expect(DocPromiseFS.bytes(target) == Data("new".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link2.path)) == "link1")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link1.path)) == "real.bin")
    }

    // DurableWrites.md: "A link that leads anywhere else is refused with
    // `.symlinkOutsideFolder(url, destination:)`, and nothing is written"
    @Test func symlinkOutOfFolderIsRefusedAndNothingWritten() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        try FileManager.default.createDirectory(at: temp.folder("other"), withIntermediateDirectories: true)
        let outside = temp.folder("other").appendingPathComponent("secret.bin")
        try DurableFile.write(Data("untouched".utf8), to: outside)
        let folder = temp.folder("app")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent("data.bin")
        try DocPromiseFS.symlink(link, to: outside.path)
        var thrown: FileStorageError?
        do { try DurableFile.write(Data("new".utf8), to: link) } catch { thrown = error }
        if case .symlinkOutsideFolder(let url, _)? = thrown {
            #expect(url.lastPathComponent == "data.bin")
        } else {
            Issue.record("expected .symlinkOutsideFolder, got \(String(describing: thrown))")
        }
        #expect(DocPromiseFS.bytes(outside) == Data("untouched".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == outside.path)
        #expect(try temp.entries(in: "app") == ["data.bin"])
    }

    // DurableWrites.md: "A loop of links is `.io(url, operation: \"resolve symbolic links\", errno: ELOOP)`."
    @Test func symlinkLoopIsELOOP() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        try DocPromiseFS.symlink(temp.file("a"), to: "b")
        try DocPromiseFS.symlink(temp.file("b"), to: "a")
        var thrown: FileStorageError?
        do { try DurableFile.write(Data("x".utf8), to: temp.file("a")) } catch { thrown = error }
        if case .io(_, let operation, let code)? = thrown {
            #expect(operation == "resolve symbolic links")
            #expect(code == ELOOP)
        } else {
            Issue.record("expected .io ELOOP, got \(String(describing: thrown))")
        }
    }

    // DurableWrites.md: "Its mode is set (`fchmod`) to the existing file's mode, or 0600 for a new file"
    @Test func newFileIs0600AndExistingModeIsKept() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("f.bin")
        try DurableFile.write(Data("1".utf8), to: url)
        #expect(DocPromiseFS.mode(url) == 0o600)
        chmod(url.path, 0o640)
        try DurableFile.write(Data("2".utf8), to: url)
        #expect(DocPromiseFS.mode(url) == 0o640)
        chmod(url.path, 0o604)
        try DurableFile.write(Data("3".utf8), to: url)
        #expect(DocPromiseFS.mode(url) == 0o604)
    }

    // DurableWrites.md: "If anything fails before the rename, the temporary file is deleted and the old
    // file is untouched; the error says which step failed." (a write that hits the file-size limit in a
    // real process: FileStorageErrors.md's `.diskFull`, "the previous version is intact")
    @Test func failedWriteInAnotherProcessLeavesOldFileAndNoTemporary() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("big.plist")
        let old = Data("previous version".utf8)
        try DurableFile.write(old, to: url)
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        let child = try await faults.runWithFileSizeLimit(4096, ["write-large", url.path, "4096", "durable"])
        #expect(child.termination == ProbeExit.diskFull.termination, "\(child.standardOutput) \(child.standardError)")
        #expect(DocPromiseFS.bytes(url) == old)
        #expect(DocPromiseFS.temporaryFiles(in: temp.url, of: "big.plist") == [])
    }

    // DurableWrites.md: "`DurableFile.read` reads the whole file with a plain `open`/`read`; it needs no
    // lock, because a writer never changes the file a reader has open"
    @Test func readNeedsNoLockAndNeverSeesAMixedVersionWhileAnotherProcessWrites() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise", inMemory: true)
        let url = temp.file("loop.plist")
        let writer = try ChildProcess.start(try ChildProcess.storageProbe(), ["write-loop", url.path, "binary"])
        _ = try await writer.waitForLine(deadline: .now + .seconds(20)) { $0.hasPrefix("ready") }
        // A read does not wait for the lock: one read while another thread holds it.
        let holder = try DocPromiseLockHolder(url)
        let lockedStart = ContinuousClock.now
        _ = try DurableFile.read(url)
        #expect(ContinuousClock.now - lockedStart < .milliseconds(500))
        holder.unlock()
        var versions = Set<Int>()
        // Until the reads have overlapped a few writes (a deadline, not a window: on a loaded machine
        // one write, with its fsyncs, can take longer than any fixed window).
        let deadline = ContinuousClock.now + DeadlineScale.scaled(.seconds(30))
        while versions.count < 3, ContinuousClock.now < deadline {
            let data = try DurableFile.read(url)
            let dict = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
            guard let version = dict?["version"] as? Int, let payload = dict?["payload"] as? Data else {
                Issue.record("a read saw a file that is not a whole version"); break
            }
            #expect(payload == ProbeSnapshot.payload(version: version), "version \(version) is mixed")
            versions.insert(version)
            await Task.yield()
        }
        writer.kill(SIGKILL)
        _ = try await writer.waitForExit(deadline: .now + .seconds(10))
        print("DocPromise: read \(versions.count) distinct versions while the writer ran")
        #expect(versions.count >= 2, "the reads did not overlap the writes")
    }

    // DurableWrites.md: "`DurableFile.remove` unlinks the file and flushes the folder; a missing file is not an error."
    @Test func removeUnlinksAndMissingFileIsNotAnError() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("gone.bin")
        try DurableFile.write(Data("x".utf8), to: url)
        try DurableFile.remove(url)
        #expect(!DocPromiseFS.exists(url))
        try DurableFile.remove(url)   // must not throw
    }

    // AppDirectoriesGuide.md: "`DurableFile` does not [create the folder] (a missing folder is `.notFound`)."
    @Test func writeIntoMissingFolderIsNotFound() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.folder("missing").appendingPathComponent("f.bin")
        #expect(throws: FileStorageError.notFound(url)) { try DurableFile.write(Data("x".utf8), to: url) }
        #expect(!DocPromiseFS.exists(temp.folder("missing")))
    }

    // DurableWrites.md: "A process killed in the middle of a write leaves its temporary file behind [...]
    // The file itself is intact, and such leftovers, named `.<name>.tmp-*`, are never read. **The next
    // write in that folder removes them**" ("for any file in the folder")
    @Test func leftoversOfAKilledWriterGoWithTheNextWriteOfAnyFileInTheFolder() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")   // on disk: fsyncs make writes long enough to land in
        let url = temp.file("loop.plist")
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        var leftovers = 0
        var trials = 0
        let budget = ContinuousClock.now + .seconds(2)
        repeat {
            try await faults.killAtRandomMoments(label: "doc-promise leftovers", trials: 4, maxPause: .milliseconds(15),
                                                 arguments: { _ in ["write-loop", url.path, "binary"] }) { kill in
                trials += 1
                // The file itself is intact.
                let dict = DocPromiseFS.plist(url) as? [String: Any]
                let version = dict?["version"] as? Int
                #expect(version != nil && (dict?["payload"] as? Data) == ProbeSnapshot.payload(version: version!), "\(kill)")
                let before = DocPromiseFS.temporaryFiles(in: temp.url, of: "loop.plist")
                leftovers += before.count
                // The next write in the folder, of another file, removes them.
                try DurableFile.write(Data("\(kill.trial)".utf8), to: temp.file("other.bin"))
                #expect(DocPromiseFS.temporaryFiles(in: temp.url, of: "loop.plist") == [], "\(kill), left \(before)")
            }
        } while leftovers == 0 && ContinuousClock.now < budget
        print("DocPromise: \(leftovers) leftover temporary files in \(trials) kills")
        #expect(leftovers > 0, "no kill landed inside a write: the promise was not exercised")
    }

    // DurableWrites.md: "A live writer in another process holds its lock, so its file stays." / "a file
    // held by another descriptor [...] stays"; "If the lock is granted [...] it removes it."
    @Test func heldTemporaryFileStaysAndUnheldOneGoes() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let held = temp.file(".data.bin.tmp-123-456")
        let unheld = temp.file(".data.bin.tmp-999-1")
        FileManager.default.createFile(atPath: held.path, contents: Data("h".utf8))
        FileManager.default.createFile(atPath: unheld.path, contents: Data("u".utf8))
        let fd = open(held.path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX) == 0)
        try DurableFile.write(Data("x".utf8), to: temp.file("data.bin"))
        #expect(DocPromiseFS.exists(held), "a held temporary file was removed")
        #expect(!DocPromiseFS.exists(unheld), "an abandoned temporary file was kept")
        close(fd)
        try DurableFile.write(Data("y".utf8), to: temp.file("data.bin"))
        #expect(!DocPromiseFS.exists(held), "the released temporary file was kept")
    }

    // DurableWrites.md: "**Only that exact shape.** Another program's `.notes.tmp-draft` or `.x.tmp-1-2b` may
    // be written by something that holds no lock, so it is never touched. (The `plist` command's own
    // temporary files are `.<name>.plist-<pid>-<random>` and are not touched either.)"
    @Test func lookAlikeNamesAreNeverTouched() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let keep = [".notes.tmp-draft", ".x.tmp-1-2b", ".a.plist-12-34", ".x.tmp-1-", "x.tmp-1-2", ".x.tmp--2"]
        for name in keep { FileManager.default.createFile(atPath: temp.file(name).path, contents: Data("k".utf8)) }
        let shaped = ".x.tmp-1-2"
        FileManager.default.createFile(atPath: temp.file(shaped).path, contents: Data("g".utf8))
        try DurableFile.write(Data("x".utf8), to: temp.file("x"))
        for name in keep { #expect(DocPromiseFS.exists(temp.file(name)), "\(name) was removed") }
        #expect(!DocPromiseFS.exists(temp.file(shaped)), "the exact shape was kept")
    }

    // DurableWrites.md: "`DurableFile.moveAside` renames it [...] to `<name>.corrupt-<UTC time>` and flushes
    // the folder [...] That makes no temporary file."
    @Test func moveAsideRenamesToCorruptTimestamp() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("doc.plist")
        try DurableFile.write(Data("garbage".utf8), to: url)
        let moved = try DurableFile.moveAside(url)
        #expect(!DocPromiseFS.exists(url))
        #expect(DocPromiseFS.bytes(moved) == Data("garbage".utf8))
        #expect(moved.deletingLastPathComponent().standardizedFileURL.path == temp.url.standardizedFileURL.path)
        #expect(moved.lastPathComponent.hasPrefix("doc.plist.corrupt-"), "\(moved.lastPathComponent)")
        #expect(try temp.entries() == [moved.lastPathComponent])
    }

    // DurableWrites.md: "`AppDirectories.createFolder(_:)` [...] guarantees the whole chain when it returns"
    // and AppDirectoriesGuide.md: "make the folder and any missing parents with mode 0700, and leave existing
    // folders' modes alone" — here on a folder a killed process made with bare mkdirs.
    @Test func createFolderOnAFolderLeftByAKilledMaker() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let made = temp.folder("a/b")
        let maker = try ChildProcess.start(try ChildProcess.storageProbe(), ["mkdir-and-hang", made.path])
        _ = try await maker.waitForLine(deadline: .now + .seconds(20)) { $0 == "made" }
        maker.kill(SIGKILL)
        #expect(try await maker.waitForExit(deadline: .now + .seconds(10)) == .signaled(SIGKILL))
        chmod(made.path, 0o755)
        let deeper = made.appendingPathComponent("c/d")
        try AppDirectories.createFolder(deeper)
        #expect(DocPromiseFS.mode(made) == 0o755, "an existing folder's mode changed")
        #expect(DocPromiseFS.mode(made.appendingPathComponent("c")) == 0o700)
        #expect(DocPromiseFS.mode(deeper) == 0o700)
        // Calling it again is fine (once per process and folder), and a folder removed and made again works.
        try AppDirectories.createFolder(deeper)
        try FileManager.default.removeItem(at: deeper)
        try AppDirectories.createFolder(deeper)
        #expect(DocPromiseFS.mode(deeper) == 0o700)
        try DurableFile.write(Data("x".utf8), to: deeper.appendingPathComponent("f"))
    }
}

// MARK: - AppDirectoriesGuide.md

@Suite struct AppDirectoriesGuide {
    // AppDirectoriesGuide.md: the Linux column of the table: "`$XDG_DATA_HOME/<app>`, default
    // `~/.local/share/<app>`", "`$XDG_CONFIG_HOME/<app>`, default `~/.config/<app>`", "`$XDG_CACHE_HOME/<app>`,
    // default `~/.cache/<app>`", documents "default `~/Documents`, plus `/<app>`"
    @Test func linuxDefaultsFollowHome() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let home = temp.url.path
        let dirs = AppDirectories(appName: "demo", environment: ["HOME": home])
        #expect(dirs.applicationSupport.path == "\(home)/.local/share/demo")
        #expect(dirs.preferences.path == "\(home)/.config/demo")
        #expect(dirs.caches.path == "\(home)/.cache/demo")
        #expect(dirs.documents.path == "\(home)/Documents/demo")
    }

    // AppDirectoriesGuide.md: "An `XDG_*` variable counts only when it is an absolute path; a relative one
    // falls back to the default."
    @Test func xdgVariablesCountOnlyWhenAbsolute() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let home = temp.url.path
        let dirs = AppDirectories(appName: "demo", environment: [
            "HOME": home, "XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "relative/config", "XDG_CACHE_HOME": "/x/cache"])
        #expect(dirs.applicationSupport.path == "/x/data/demo")
        #expect(dirs.preferences.path == "\(home)/.config/demo")
        #expect(dirs.caches.path == "/x/cache/demo")
    }

    // AppDirectoriesGuide.md: "`XDG_DOCUMENTS_DIR` from `~/.config/user-dirs.dirs` (a leading `$HOME` expanded)
    // [...] plus `/<app>`"
    @Test func documentsFromUserDirsWithHomeExpanded() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let home = temp.url.path
        try FileManager.default.createDirectory(at: temp.folder(".config"), withIntermediateDirectories: true)
        try Data("# comment\nXDG_DOCUMENTS_DIR=\"$HOME/Papers\"\n".utf8).write(to: temp.file(".config/user-dirs.dirs"))
        let dirs = AppDirectories(appName: "demo", environment: ["HOME": home])
        #expect(dirs.documents.path == "\(home)/Papers/demo")
    }

    // AppDirectoriesGuide.md: "`<app>` is made into one safe path component: `/` and NUL become `_`, leading
    // dots are dropped, and an empty result becomes `App`."
    @Test func appNameBecomesOneSafeComponent() {
        #expect(AppDirectories.safeComponent("a/b") == "a_b")
        #expect(AppDirectories.safeComponent("a\u{0}b") == "a_b")
        #expect(AppDirectories.safeComponent("..hidden") == "hidden")
        #expect(AppDirectories.safeComponent("") == "App")
        #expect(AppDirectories.safeComponent("...") == "App")
        let dirs = AppDirectories(appName: "../evil", root: nil, environment: ["HOME": "/h"])
        #expect(dirs.applicationSupport.lastPathComponent == "_evil")
        #expect(dirs.applicationSupport.deletingLastPathComponent().path == "/h/.local/share")
    }

    // AppDirectoriesGuide.md: "Under a root the folders are `<root>/ApplicationSupport`, `<root>/Documents`,
    // `<root>/Caches` and `<root>/Preferences` (no app subfolder). `root:` wins over the variable, and an
    // empty variable is ignored."
    @Test func rootOverridePutsEverythingUnderOneRoot() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let root = temp.folder("root")
        let env = ["HOME": "/h", "PERSISTENCE_TOOLKIT_ROOT": "/from-variable"]
        let byArgument = AppDirectories(appName: "demo", root: root, environment: env)
        #expect(byArgument.applicationSupport.path == root.appendingPathComponent("ApplicationSupport").path)
        #expect(byArgument.documents.path == root.appendingPathComponent("Documents").path)
        #expect(byArgument.caches.path == root.appendingPathComponent("Caches").path)
        #expect(byArgument.preferences.path == root.appendingPathComponent("Preferences").path)
        let byVariable = AppDirectories(appName: "demo", environment: env)
        #expect(byVariable.applicationSupport.path == "/from-variable/ApplicationSupport")
        let empty = AppDirectories(appName: "demo", environment: ["HOME": "/h", "PERSISTENCE_TOOLKIT_ROOT": ""])
        #expect(empty.applicationSupport.path == "/h/.local/share/demo")
    }

    // AppDirectoriesGuide.md: "Folders are created only when you ask: `applicationSupport(creating: true)` and
    // its siblings [...] make the folder and any missing parents with mode 0700, and leave existing folders'
    // modes alone."
    @Test func foldersAreCreatedOnlyWhenAskedWith0700() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let root = temp.folder("r")
        let dirs = AppDirectories(appName: "demo", root: root)
        _ = dirs.applicationSupport; _ = dirs.caches
        _ = try dirs.caches(creating: false)
        #expect(!DocPromiseFS.exists(root))
        let made = try dirs.caches(creating: true)
        #expect(DocPromiseFS.mode(root) == 0o700)
        #expect(DocPromiseFS.mode(made) == 0o700)
        try FileManager.default.createDirectory(at: dirs.documents, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o751])
        chmod(dirs.documents.path, 0o751)
        _ = try dirs.documents(creating: true)
        #expect(DocPromiseFS.mode(dirs.documents) == 0o751)
        _ = try dirs.preferences(creating: true)
        _ = try dirs.applicationSupport(creating: true)
        #expect(DocPromiseFS.mode(dirs.preferences) == 0o700)
        #expect(DocPromiseFS.mode(dirs.applicationSupport) == 0o700)
    }

    // AppDirectoriesGuide.md: "`PlistFileStorage` and `DefaultsSuite` create the folder of a file they write"
    @Test func storesCreateTheFolderOfAFileTheyWrite() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let file = temp.folder("s/t").appendingPathComponent("c.plist")
        try PlistFileStorage().write(DocPromiseCounter(count: 1), to: file)
        #expect(DocPromiseFS.mode(temp.folder("s/t")) == 0o700)
        let suite = DefaultsSuite(suiteName: "prefs", folder: temp.folder("p/q"))
        #expect(!DocPromiseFS.exists(temp.folder("p")), "opening a suite made its folder")
        try suite.set(1, forKey: "k")
        #expect(DocPromiseFS.mode(temp.folder("p/q")) == 0o700)
        #expect(DocPromiseFS.exists(temp.folder("p/q").appendingPathComponent("prefs.plist")))
    }

    // AppDirectoriesGuide.md: "the first call for a folder in a process flushes the chain up to the root"
    // while another process makes the same folder at the same moment: both succeed and both writes land.
    @Test func createFolderWhileAnotherProcessMakesAndWritesInIt() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("shared/deep/er")
        let child = try ChildProcess.start(try ChildProcess.storageProbe(),
                                           ["storage-set-key", folder.appendingPathComponent("s.plist").path, "child", "1"])
        try AppDirectories.createFolder(folder)
        try DurableFile.write(Data("mine".utf8), to: folder.appendingPathComponent("mine.bin"))
        #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == .exited(0), "\(child.standardError)")
        #expect(DocPromiseFS.bytes(folder.appendingPathComponent("mine.bin")) == Data("mine".utf8))
        #expect((DocPromiseFS.plist(folder.appendingPathComponent("s.plist")) as? [String: Int])?["child"] == 1)
    }
}

// MARK: - Locks.md

@Suite struct Locks {
    // Locks.md: "The lock is `flock(LOCK_EX)` on `.<name>.lock` in the file's folder (`FileLock.lockURL(for:)`),
    // created with mode 0600 and never renamed or deleted."
    @Test func sidecarNameModeAndPermanence() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("data.plist")
        let lock = FileLock.lockURL(for: url)
        #expect(lock.lastPathComponent == ".data.plist.lock")
        #expect(lock.deletingLastPathComponent().standardizedFileURL.path == temp.url.standardizedFileURL.path)
        try FileLock.withExclusiveLock(for: url, timeout: .seconds(2)) {
            #expect(DocPromiseFS.mode(lock) == 0o600)
        }
        let inode = DocPromiseFS.inode(lock)
        let storage = PlistFileStorage()
        try storage.write(DocPromiseCounter(count: 1), to: url)
        _ = try storage.update(at: url, default: DocPromiseCounter(count: 0)) { $0.count += 1 }
        #expect(DocPromiseFS.inode(lock) == inode, "the lock file was replaced")
        #expect(DocPromiseFS.mode(lock) == 0o600)
        try storage.deleteFile(at: url)
        #expect(DocPromiseFS.inode(lock) == inode, "the lock file went with the delete")
    }

    // Locks.md: "For a same-folder symbolic link, the lock belongs to the link's destination, so writers
    // through the link and writers to the destination exclude each other."
    @Test func lockThroughSameFolderLinkExcludesDestination() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let target = temp.file("real.plist")
        try PlistFileStorage().write(DocPromiseCounter(count: 0), to: target)
        try DocPromiseFS.symlink(temp.file("alias.plist"), to: "real.plist")
        let holder = try DocPromiseLockHolder(target)
        defer { holder.unlock() }
        let storage = PlistFileStorage(lockTimeout: .milliseconds(150))
        var thrown: (any Error)?
        do { _ = try storage.update(at: temp.file("alias.plist"), default: DocPromiseCounter(count: 0)) { $0.count += 1 } }
        catch { thrown = error }
        if case .lockTimeout? = thrown as? FileStorageError {} else {
            Issue.record("a writer through the link did not wait for the destination's lock: \(String(describing: thrown))")
        }
    }

    // Locks.md: "Each acquisition opens the sidecar anew and closes it on release, so a child process started
    // while the lock is held never inherits it."
    @Test func childStartedWhileLockHeldDoesNotInheritIt() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("data.plist")
        var child: ChildProcess?
        try FileLock.withExclusiveLock(for: url, timeout: .seconds(2)) {
            child = try ChildProcess.start(try ChildProcess.storageProbe(), ["write-loop", temp.file("other.plist").path])
        }
        let running = try #require(child)
        _ = try await running.waitForLine(deadline: .now + .seconds(20)) { $0.hasPrefix("ready") }
        // The child still runs; the lock must be free for another process.
        let taker = try ChildProcess.start(try ChildProcess.storageProbe(), ["storage-set-key", url.path, "k", "1"])
        #expect(try await taker.waitForExit(deadline: .now + .seconds(10)) == .exited(0), "\(taker.standardError)")
        running.kill(SIGKILL)
        _ = try await running.waitForExit(deadline: .now + .seconds(10))
    }

    // Locks.md: "a path already claimed counts as taken, so threads and tasks of one process wait for each
    // other" and "until the deadline [...] then throws `.lockTimeout(url, seconds:)`."
    @Test func threadsOfOneProcessWaitAndTimeOut() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("data.plist")
        let holder = try DocPromiseLockHolder(url)
        let start = ContinuousClock.now
        var thrown: (any Error)?
        do { try FileLock.withExclusiveLock(for: url, timeout: .milliseconds(200)) { Issue.record("entered a held lock") } }
        catch { thrown = error }
        let waited = ContinuousClock.now - start
        if case .lockTimeout(let named, let seconds)? = thrown as? FileStorageError {
            #expect(named.standardizedFileURL.path == url.standardizedFileURL.path)
            #expect(abs(seconds - 0.2) < 0.001)
        } else {
            Issue.record("expected .lockTimeout, got \(String(describing: thrown))")
        }
        #expect(waited >= .milliseconds(190))
        #expect(waited < .seconds(2))
        holder.unlock()
        try FileLock.withExclusiveLock(for: url, timeout: .seconds(1)) {}
    }

    // Locks.md: "**Not re-entrant.** Taking the lock for a file while this process already holds it (on any
    // thread) waits until the deadline and throws `.lockTimeout`."
    @Test func nestedLockTimesOut() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("data.plist")
        var inner: (any Error)?
        try FileLock.withExclusiveLock(for: url, timeout: .seconds(1)) {
            do { try FileLock.withExclusiveLock(for: url, timeout: .milliseconds(100)) {} } catch { inner = error }
        }
        if case .lockTimeout? = inner as? FileStorageError {} else {
            Issue.record("expected .lockTimeout from a nested lock, got \(String(describing: inner))")
        }
    }

    // Locks.md: "The `async` variant [...] pauses with `Task.sleep`" and the stores' async views: "A task
    // waiting there for another writer never holds a pool thread." Two async waiters plus a holder on
    // another thread: all complete, and no increment is lost.
    @Test func asyncViewWaitsForTheLockAndLosesNothing() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("counter.plist")
        let storage = PlistFileStorage()
        let holder = try DocPromiseLockHolder(url)
        async let first = storage.async.update(at: url, default: DocPromiseCounter(count: 0)) { $0.count += 1 }
        async let second = storage.async.update(at: url, default: DocPromiseCounter(count: 0)) { $0.count += 1 }
        try await Task.sleep(for: .milliseconds(50))   // the waiters are parked on the held lock
        #expect(!DocPromiseFS.exists(url), "an update ran while the lock was held")
        holder.unlock()
        let results = try await [first.count, second.count].sorted()
        #expect(results == [1, 2])
        let final: DocPromiseCounter = try storage.data(for: url)
        #expect(final.count == 2)
    }

    // Locks.md: "**Deletes** [...] a file that is not there is not an error, and deleting it writes nothing,
    // no lock file either [...] A file that is there is removed under its lock, and the lock file stays"
    @Test func deletesOfMissingFilesCreateNothing() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("absent.plist")
        try PlistFileStorage().deleteFile(at: url)
        try await PlistFileStorage().async.deleteFile(at: url)
        #expect(try temp.entries() == [])
        try PlistFileStorage().write(DocPromiseCounter(count: 1), to: url)
        try PlistFileStorage().deleteFile(at: url)
        #expect(try temp.entries() == [".absent.plist.lock"])
    }

    // Locks.md: "**Reads** (`data(for:)`, `PlistDocument.read`, a `DefaultsSuite`'s values [...]) take no lock
    // and create nothing"
    @Test func readsCreateNothing() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("r.plist")
        let bytes = try PropertyListEncoder().encode(DocPromiseCounter(count: 7))
        FileManager.default.createFile(atPath: url.path, contents: bytes)
        try Data(try PropertyListSerialization.data(fromPropertyList: ["k": 3], format: .binary, options: 0))
            .write(to: temp.file("suite.plist"))
        let holder = try DocPromiseLockHolder(url)   // a read must not wait for a writer
        defer { holder.unlock() }
        let value: DocPromiseCounter = try PlistFileStorage().data(for: url)
        #expect(value.count == 7)
        let suite = DefaultsSuite(suiteName: "suite", folder: temp.url)
        #expect(suite.integer(forKey: "k") == 3)
        _ = suite.dictionaryRepresentation()
        #expect(try temp.entries() == [".r.plist.lock", "r.plist", "suite.plist"])
    }

    // Locks.md: "it succeeds in a folder the process may not write to" and "a file in a read-only folder reads
    // as anywhere else" — checked as an unprivileged user in a child process.
    @Test(.enabled(if: ProcessFaults.canRunUnprivileged)) func readOnlyFolderReadsAndDeletesOfMissingFiles() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("ro")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("f.plist")
        // The shape `storage-probe read` decodes (what its write-loop writes).
        struct Snapshot: Codable { var version: Int; var payload: Data }
        try PlistFileStorage().write(Snapshot(version: 1, payload: ProbeSnapshot.payload(version: 1, size: 64)), to: file)
        try FileManager.default.removeItem(at: FileLock.lockURL(for: file))
        try ProcessFaults.makeReadOnly(folder, files: [file], in: temp)
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        let read = try await faults.runUnprivileged(["read", file.path, "storage"])
        #expect(read.termination == .exited(0), "\(read.standardOutput) \(read.standardError)")
        let delete = try await faults.runUnprivileged(["delete", folder.appendingPathComponent("missing.plist").path, "storage"])
        #expect(delete.termination == .exited(0), "\(delete.standardOutput) \(delete.standardError)")
        let write = try await faults.runUnprivileged(["write-readonly", file.path, "storage"])
        #expect(write.termination == ProbeExit.permissionDenied.termination, "\(write.standardOutput) \(write.standardError)")
        #expect(try temp.entries(in: "ro") == ["f.plist"])
    }

    // Locks.md: "Do the read, the change and the write under the lock, in one call" — `PlistFileStorage.update`
    // in two other processes and this one at once: no increment is lost.
    @Test func updateAcrossProcessesLosesNoIncrement() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("counter.plist")
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        async let children = faults.runTogether([["storage-increment", url.path, "30"], ["storage-increment", url.path, "30"]])
        let storage = PlistFileStorage()
        for _ in 0..<30 { _ = try await storage.async.update(at: url, default: DocPromiseCounter(count: 0)) { $0.count += 1 } }
        _ = try await children
        let final: DocPromiseCounter = try storage.data(for: url)
        #expect(final.count == 90)
    }

    // Locks.md: "`DefaultsSuite.set` is also safe with respect to other keys: it re-reads the file under the
    // lock and merges only its own key, so processes that set different keys keep all of them."
    @Test func defaultsSetInManyProcessesKeepsEveryKey() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        let keys = (0..<4).map { "key\($0)" }
        let suite = DefaultsSuite(suiteName: "shared", folder: temp.url)
        _ = suite.integer(forKey: "mine")   // this instance loaded the (missing) file before the others wrote
        async let children = faults.runTogether(keys.enumerated().map { ["defaults-set", temp.url.path, "shared", $1, "\($0 + 1)"] })
        try suite.set(99, forKey: "mine")
        _ = try await children
        try suite.set(100, forKey: "mine")
        let file = DocPromiseFS.plist(temp.file("shared.plist")) as? [String: Int]
        #expect(file == ["key0": 1, "key1": 2, "key2": 3, "key3": 4, "mine": 100])
    }
}

// MARK: - FileStorageErrors.md

@Suite struct FileStorageErrors {
    // FileStorageErrors.md: "`.notFound(URL)` | the file (or, for a write, its folder) does not exist" and
    // "its `url` names the file and its `description` says why"
    @Test func notFoundNamesTheFile() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("missing.plist")
        var thrown: (any Error)?
        do { let _: DocPromiseCounter = try PlistFileStorage().data(for: url) } catch { thrown = error }
        let error = try #require(thrown as? FileStorageError)
        #expect(error == .notFound(url))
        #expect(error.url.path == url.path)
        #expect(error.description.contains("missing.plist"))
        #expect(throws: FileStorageError.notFound(url)) { _ = try DurableFile.read(url) }
    }

    // FileStorageErrors.md: "`.corrupt(URL, PlistError)` | the file is not a valid property list [...] the file
    // was left untouched"
    @Test func corruptFileIsReportedAndLeftUntouched() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("bad.plist")
        let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8)
        FileManager.default.createFile(atPath: url.path, contents: garbage)
        let storage = PlistFileStorage()
        for attempt in 0..<2 {
            var thrown: (any Error)?
            do {
                if attempt == 0 { let _: DocPromiseCounter = try storage.data(for: url) }
                else { _ = try storage.update(at: url, default: DocPromiseCounter(count: 0)) { $0.count += 1 } }
            } catch { thrown = error }
            if case .corrupt(let named, _)? = thrown as? FileStorageError {
                #expect(named.path == url.path)
            } else { Issue.record("attempt \(attempt): expected .corrupt, got \(String(describing: thrown))") }
        }
        #expect(DocPromiseFS.bytes(url) == garbage)
    }

    // FileStorageErrors.md: "`.decodingFailed(URL, String)` | the property list is valid but is not the requested type"
    @Test func validPlistOfTheWrongTypeIsDecodingFailed() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("other.plist")
        let bytes = try PropertyListSerialization.data(fromPropertyList: ["count": "not a number"], format: .xml, options: 0)
        FileManager.default.createFile(atPath: url.path, contents: bytes)
        var thrown: (any Error)?
        do { let _: DocPromiseCounter = try PlistFileStorage().data(for: url) } catch { thrown = error }
        if case .decodingFailed(let named, _)? = thrown as? FileStorageError { #expect(named.path == url.path) }
        else { Issue.record("expected .decodingFailed, got \(String(describing: thrown))") }
    }

    // FileStorageErrors.md: "`.encodingFailed(URL, String)` | the value could not be encoded"
    @Test func unencodableValueIsEncodingFailedAndNothingWritten() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("e.plist")
        try PlistFileStorage().write(DocPromiseCounter(count: 1), to: url)
        let before = DocPromiseFS.bytes(url)
        var thrown: (any Error)?
        do { try PlistFileStorage().write(DocPromiseUnencodable(), to: url) } catch { thrown = error }
        if case .encodingFailed(let named, _)? = thrown as? FileStorageError { #expect(named.path == url.path) }
        else { Issue.record("expected .encodingFailed, got \(String(describing: thrown))") }
        #expect(DocPromiseFS.bytes(url) == before)
    }

    // FileStorageErrors.md: "`.diskFull(URL)` | `ENOSPC`, `EDQUOT`, or `EFBIG` (a file-size limit); the previous
    // version is intact" — through PlistFileStorage and DefaultsSuite in a child process.
    @Test(arguments: ["storage", "defaults"]) func fileSizeLimitIsDiskFullAndPreviousIntact(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("big.plist")
        if api == "defaults" {
            try DefaultsSuite(suiteName: "big", folder: temp.url).set("small", forKey: "keep")
        } else {
            try PlistFileStorage().write(["keep": "small"], to: url)
        }
        let before = DocPromiseFS.bytes(url)
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        let child = try await faults.runWithFileSizeLimit(8192, ["write-large", url.path, "8192", api])
        #expect(child.termination == ProbeExit.diskFull.termination, "\(child.standardOutput) \(child.standardError)")
        #expect(child.standardOutput.contains("diskFull") || child.standardError.contains("diskFull"))
        #expect(DocPromiseFS.bytes(url) == before)
        #expect(DocPromiseFS.temporaryFiles(in: temp.url, of: "big.plist") == [])
    }

    // FileStorageErrors.md: "`.lockTimeout(URL, seconds:)` | the lock was not acquired before the deadline"
    // (from a store, PlistFileStorage and DefaultsSuite, with the url of the file)
    @Test func storesReportLockTimeoutNamingTheFile() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("held.plist")
        let holder = try DocPromiseLockHolder(url)
        defer { holder.unlock() }
        var thrown: (any Error)?
        do { try PlistFileStorage(lockTimeout: .milliseconds(100)).write(DocPromiseCounter(count: 1), to: url) } catch { thrown = error }
        if case .lockTimeout(let named, _)? = thrown as? FileStorageError { #expect(named.path == url.path) }
        else { Issue.record("expected .lockTimeout, got \(String(describing: thrown))") }
        let suite = DefaultsSuite(suiteName: "held", folder: temp.url, lockTimeout: .milliseconds(100))
        thrown = nil
        do { try suite.set(1, forKey: "k") } catch { thrown = error }
        if case .lockTimeout(let named, _)? = thrown as? FileStorageError { #expect(named.path == url.path) }
        else { Issue.record("expected .lockTimeout from the suite, got \(String(describing: thrown))") }
        #expect(!DocPromiseFS.exists(url))
    }

    // FileStorageErrors.md: "`.symlinkOutsideFolder(URL, destination:)` | the target is a symbolic link out of
    // its folder; nothing was written" — through a store.
    @Test func storeRefusesSymlinkOutOfFolder() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let outside = temp.file("outside.plist")
        try PlistFileStorage().write(DocPromiseCounter(count: 1), to: outside)
        let before = DocPromiseFS.bytes(outside)
        try FileManager.default.createDirectory(at: temp.folder("in"), withIntermediateDirectories: true)
        let link = temp.folder("in").appendingPathComponent("link.plist")
        try DocPromiseFS.symlink(link, to: outside.path)
        var thrown: (any Error)?
        do { try PlistFileStorage().write(DocPromiseCounter(count: 2), to: link) } catch { thrown = error }
        if case .symlinkOutsideFolder? = thrown as? FileStorageError {} else {
            Issue.record("expected .symlinkOutsideFolder, got \(String(describing: thrown))")
        }
        #expect(DocPromiseFS.bytes(outside) == before)
    }

    // FileStorageErrors.md: "`.permissionDenied(URL)` | `EACCES`, `EPERM` or `EROFS`"
    @Test(.enabled(if: ProcessFaults.canRunUnprivileged), arguments: ["storage", "durable", "defaults"])
    func readOnlyFolderIsPermissionDenied(api: String) async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("ro")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("f.plist")
        try PlistFileStorage().write(["a": 1], to: file)
        let before = DocPromiseFS.bytes(file)
        try ProcessFaults.makeReadOnly(folder, files: [file], in: temp)
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        let child = try await faults.runUnprivileged(["write-readonly", file.path, api])
        #expect(child.termination == ProbeExit.permissionDenied.termination, "\(child.standardOutput) \(child.standardError)")
        #expect(DocPromiseFS.bytes(file) == before)
    }

    // FileStorageErrors.md: "everything the toolkit itself throws is a `FileStorageError`. `DurableFile`,
    // `AppDirectories` and `DefaultsSuite.reload()` use typed throws."
    @Test func typedThrows() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        // These compile only if the calls throw FileStorageError (typed).
        do throws(FileStorageError) { _ = try DurableFile.read(temp.file("none")) } catch {
            let typed: FileStorageError = error
            #expect(typed == .notFound(temp.file("none")))
        }
        FileManager.default.createFile(atPath: temp.file("blocker").path, contents: Data())
        do throws(FileStorageError) { try AppDirectories.createFolder(temp.file("blocker").appendingPathComponent("sub")) } catch {
            let typed: FileStorageError = error
            #expect(typed.url.path.hasPrefix(temp.url.path))
        }
        FileManager.default.createFile(atPath: temp.file("s.plist").path, contents: Data("junk".utf8))
        let suite = DefaultsSuite(suiteName: "s", folder: temp.url)
        do throws(FileStorageError) { try suite.reload(); Issue.record("reload of junk did not throw") } catch {
            let typed: FileStorageError = error
            if case .corrupt = typed {} else { Issue.record("reload threw \(typed)") }
        }
        // Untyped store methods: what they throw is still a FileStorageError.
        do { try PlistFileStorage().write(1, to: temp.file("blocker").appendingPathComponent("x.plist")) }
        catch { #expect(error is FileStorageError, "\(type(of: error))") }
    }
}

// MARK: - DefaultsSuiteGuide.md

@Suite struct DefaultsSuiteGuide {
    // DefaultsSuiteGuide.md: "keeps a suite in `<folder>/<suiteName>.plist`" / "**The file is a binary property
    // list, keys sorted**, as Apple writes preferences: the bytes Foundation's `PropertyListEncoder` writes for the
    // same dictionary [...], mode 0600, in a 0700 folder."
    @Test func fileIsSortedBinaryLikePropertyListEncoderMode0600In0700() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let folder = temp.folder("prefs")
        let suite = DefaultsSuite(suiteName: "app", folder: folder)
        #expect(suite.url.path == folder.appendingPathComponent("app.plist").path)
        try suite.set(3, forKey: "zeta")
        try suite.set("x", forKey: "alpha")
        try suite.set(2, forKey: "mid")
        let url = folder.appendingPathComponent("app.plist")
        #expect(DocPromiseFS.format(url) == .binary)
        #expect(DocPromiseFS.mode(url) == 0o600)
        #expect(DocPromiseFS.mode(folder) == 0o700)
        struct Same: Encodable { let alpha = "x"; let mid = 2; let zeta = 3 }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        #expect(DocPromiseFS.bytes(url) == (try encoder.encode(Same())))
        #expect(suite.fileFormat == .binary)
    }

    // DefaultsSuiteGuide.md: "Two instances, or two processes, that open the same suite in the same folder
    // share it." and "Every value comes back exactly as it was set, a `Date`'s fraction of a second included,
    // in the same instance and after reopening."
    @Test func valuesComeBackExactlyInOtherInstances() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let date = Date(timeIntervalSinceReferenceDate: 765_432_100.123_456)
        let a = DefaultsSuite(suiteName: "s", folder: temp.url)
        let b = DefaultsSuite(suiteName: "s", folder: temp.url)
        _ = b.date(forKey: "d")     // b loaded before a wrote
        try a.set(date, forKey: "d")
        try a.set(Data([0, 1, 2]), forKey: "data")
        try a.set(1.25, forKey: "real")
        try a.set(["x", "y"], forKey: "list")
        #expect(a.date(forKey: "d") == date)
        let c = DefaultsSuite(suiteName: "s", folder: temp.url)
        #expect(c.date(forKey: "d") == date)
        #expect(c.data(forKey: "data") == Data([0, 1, 2]))
        #expect(c.double(forKey: "real") == 1.25)
        #expect(c.stringArray(forKey: "list") == ["x", "y"])
        // `b` (opened before) sees them through the file the other instance wrote.
        try b.set(1, forKey: "other")
        #expect(b.date(forKey: "d") == date)
        #expect(c.integer(forKey: "other") == 1 || DefaultsSuite(suiteName: "s", folder: temp.url).integer(forKey: "other") == 1)
    }

    // DefaultsSuiteGuide.md: "a file someone wrote as XML [...] is rewritten as XML" and "XML keeps dates to the
    // second, so with an XML file the suite serves what the file holds, not the value you passed, and every
    // instance and process agrees: set `…00.75` and you read back `…00`. `fileFormat` tells which one a suite has."
    @Test func xmlFileStaysXmlAndDatesAreServedToTheSecond() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("x.plist")
        let bytes = try PropertyListSerialization.data(fromPropertyList: ["hand": "edited"], format: .xml, options: 0)
        FileManager.default.createFile(atPath: url.path, contents: bytes)
        let suite = DefaultsSuite(suiteName: "x", folder: temp.url)
        let precise = Date(timeIntervalSince1970: 1_700_000_000.75)
        try suite.set(precise, forKey: "when")
        #expect(suite.fileFormat == .xml)
        #expect(DocPromiseFS.format(url) == .xml)
        #expect(suite.date(forKey: "when") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(DefaultsSuite(suiteName: "x", folder: temp.url).date(forKey: "when") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(suite.string(forKey: "hand") == "edited")
    }

    // DefaultsSuiteGuide.md: "(OpenStep as XML too, since OpenStep cannot be written), and `newFileFormat: .xml`
    // makes new files XML."
    @Test func openStepIsRewrittenAsXmlAndNewFileFormatXml() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("o.plist")
        FileManager.default.createFile(atPath: url.path, contents: Data("{ name = \"old\"; }".utf8))
        let suite = DefaultsSuite(suiteName: "o", folder: temp.url)
        #expect(suite.string(forKey: "name") == "old")
        try suite.set(1, forKey: "n")
        #expect(DocPromiseFS.format(url) == .xml)
        #expect(suite.fileFormat == .xml)
        #expect((DocPromiseFS.plist(url) as? [String: Any])?["name"] as? String == "old")
        let fresh = DefaultsSuite(suiteName: "n", folder: temp.url, newFileFormat: .xml)
        try fresh.set(1, forKey: "k")
        #expect(DocPromiseFS.format(temp.file("n.plist")) == .xml)
    }

    // DefaultsSuiteGuide.md: "Setting the value a key already has writes nothing." and "**Equal values are not
    // rewritten**, whatever the order of a dictionary's keys [...] setting it again writes nothing and notifies nobody."
    @Test func settingTheSameValueWritesNothingAndNotifiesNobody() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("s.plist")
        struct Profile: Codable { var zebra = 1; var apple = "a"; var mango = [1, 2] }
        let suite = DefaultsSuite(suiteName: "s", folder: temp.url)
        try suite.set(5, forKey: "n")
        try suite.set(encoding: Profile(), forKey: "profile")
        let inode = DocPromiseFS.inode(url)
        let heard = DocPromiseKeys()
        let subscription = suite.observe { heard.append($0) }
        defer { subscription.cancel() }
        try suite.set(5, forKey: "n")
        try suite.set(encoding: Profile(), forKey: "profile")
        let other = DefaultsSuite(suiteName: "s", folder: temp.url)
        try other.set(encoding: Profile(), forKey: "profile")
        #expect(DocPromiseFS.inode(url) == inode, "an equal value was rewritten")
        try suite.set(6, forKey: "sentinel")
        #expect(await waitUntil(timeout: .seconds(2)) { heard.all.contains("sentinel") })
        #expect(!heard.all.contains("n") && !heard.all.contains("profile"), "\(heard.all)")
        #expect(DocPromiseFS.inode(url) != inode)
    }

    // DefaultsSuiteGuide.md: "**Registered defaults** (`register(defaults:)`) are returned for keys with no stored
    // value, belong to the instance, and are never written. `dictionaryRepresentation()` merges them under the
    // stored values."
    @Test func registeredDefaultsBelongToTheInstance() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let suite = DefaultsSuite(suiteName: "r", folder: temp.url)
        suite.register(defaults: ["theme": .string("dark"), "size": .int(12)])
        #expect(suite.string(forKey: "theme") == "dark")
        try suite.set(14, forKey: "size")
        try suite.set(1, forKey: "other")
        let onDisk = DocPromiseFS.plist(temp.file("r.plist")) as? [String: Int]
        #expect(onDisk == ["size": 14, "other": 1])
        let dict = suite.dictionaryRepresentation()
        #expect(dict["theme"] == .string("dark"))
        #expect(dict["size"] == .int(14))
        #expect(DefaultsSuite(suiteName: "r", folder: temp.url).string(forKey: "theme") == nil)
    }

    // DefaultsSuiteGuide.md: "**Typed getters convert as `UserDefaults` does**" with the listed examples.
    @Test func typedGettersConvertAsDocumented() throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let s = DefaultsSuite(suiteName: "t", folder: temp.url)
        let values: [String: PlistValue] = [
            "n": .int(42), "t": .bool(true), "f": .bool(false), "r": .real(-4.7), "s1": .string("42abc"),
            "s2": .string(" 42"), "s3": .string("4.7"), "s4": .string("abc"), "e": .string("1e3"),
            "yes": .string("yes"), "TRUE": .string("TRUE"), "nine": .string("9"), "no": .string("no"),
            "zero": .string("0"), "zeros": .string("000"), "signed": .string(" +007"), "path": .string("~/x/y")]
        try s.updateAll { dict in for (k, v) in values { dict[k] = v } }
        #expect(s.string(forKey: "n") == "42")
        #expect(s.string(forKey: "t") == "1")
        #expect(s.string(forKey: "f") == "0")
        #expect(s.integer(forKey: "r") == -4)
        #expect(s.integer(forKey: "t") == 1)
        #expect(s.integer(forKey: "s1") == 42)
        #expect(s.integer(forKey: "s2") == 42)
        #expect(s.integer(forKey: "s3") == 4)
        #expect(s.integer(forKey: "s4") == 0)
        #expect(s.double(forKey: "e") == 1000)
        #expect(s.float(forKey: "e") == 1000)
        #expect(s.bool(forKey: "yes") && s.bool(forKey: "TRUE") && s.bool(forKey: "nine") && s.bool(forKey: "n"))
        #expect(s.bool(forKey: "signed"))
        #expect(!s.bool(forKey: "no") && !s.bool(forKey: "zero") && !s.bool(forKey: "zeros"))
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        #expect(s.url(forKey: "path")?.path == URL(fileURLWithPath: home).appendingPathComponent("x/y").path)
        try s.set(URL(fileURLWithPath: "/tmp/some/file"), forKey: "u")
        #expect(s.object(forKey: "u") == .string("/tmp/some/file"))
        #expect(s.url(forKey: "u")?.path == "/tmp/some/file")
    }

    // DefaultsSuiteGuide.md: "**A corrupt file is never overwritten.** If the file is not a property list, or its
    // top level is not a dictionary, writes throw `.corrupt` and leave the bytes alone, and gets keep serving the
    // last good values. The reason is in `lastLoadError` (cleared by the next good load or write); `reload()`
    // re-reads the file now and throws the error." — the file damaged by another process while the suite is open.
    @Test(arguments: ["not a plist", "array"]) func corruptFileIsNeverOverwritten(kind: String) async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let url = temp.file("c.plist")
        let suite = DefaultsSuite(suiteName: "c", folder: temp.url)
        try suite.set(7, forKey: "good")
        let bad = kind == "array" ? try PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0)
                                  : Data("definitely { not a plist".utf8)
        try DurableFile.write(bad, to: url)   // as another process would
        var thrown: (any Error)?
        do { try suite.set(8, forKey: "good") } catch { thrown = error }
        if case .corrupt? = thrown as? FileStorageError {} else { Issue.record("set threw \(String(describing: thrown))") }
        #expect(DocPromiseFS.bytes(url) == bad)
        #expect(suite.integer(forKey: "good") == 7)
        // It was sometimes nil here (3 of 8 parallel runs): a refused write now records its reason itself.
        if case .corrupt? = suite.lastLoadError {} else { Issue.record("after the refused set, lastLoadError is \(String(describing: suite.lastLoadError))") }
        #expect(throws: FileStorageError.self) { try suite.reload() }
        // A second process's write is refused the same way.
        let child = try ChildProcess.start(try ChildProcess.storageProbe(), ["defaults-set", temp.url.path, "c", "k", "1"])
        #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == ProbeExit.corrupt.termination, "\(child.standardError)")
        #expect(DocPromiseFS.bytes(url) == bad)
        // Repaired: the next good load clears the error.
        try DurableFile.write(try PropertyListSerialization.data(fromPropertyList: ["good": 9], format: .binary, options: 0), to: url)
        try suite.reload()
        #expect(suite.lastLoadError == nil)
        #expect(suite.integer(forKey: "good") == 9)
    }

    // DefaultsSuiteGuide.md: "**`observe(_:)`** calls a handler with each key that changes, whether this instance,
    // another instance or another process changed them [...] this instance's own after its write."
    @Test func observeHearsOwnOtherInstanceAndOtherProcessChanges() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let suite = DefaultsSuite(suiteName: "o", folder: temp.url)
        try suite.set(0, forKey: "seed")
        let heard = DocPromiseKeys()
        let subscription = suite.observe { heard.append($0) }
        defer { subscription.cancel() }
        try suite.set(1, forKey: "mine")
        #expect(await waitUntil(timeout: .seconds(2)) { heard.all.contains("mine") })
        try DefaultsSuite(suiteName: "o", folder: temp.url).set(2, forKey: "sibling")
        #expect(await waitUntil(timeout: .seconds(2)) { heard.all.contains("sibling") })
        let child = try ChildProcess.start(try ChildProcess.storageProbe(), ["defaults-set", temp.url.path, "o", "remote", "3"])
        #expect(try await child.waitForExit(deadline: .now + .seconds(20)) == .exited(0))
        #expect(await waitUntil(timeout: .seconds(2)) { heard.all.contains("remote") }, "heard \(heard.all)")
        #expect(suite.integer(forKey: "remote") == 3)
    }

    // DefaultsSuiteGuide.md: "**`changes()`** is the same as an `AsyncStream<String>`, which ends when the suite
    // is released."
    @Test func changesStreamEndsWhenSuiteIsReleased() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        var suite: DefaultsSuite? = DefaultsSuite(suiteName: "s", folder: temp.url)
        let stream = suite!.changes()
        try suite!.set(1, forKey: "a")
        let done = DocPromiseFlag()
        let seen = DocPromiseKeys()
        let consumer = Task { for await key in stream { seen.append(key) }; done.set(); return seen.all }
        #expect(await waitUntil(timeout: .seconds(2)) { seen.all.contains("a") })
        suite = nil
        let finished = await waitUntil(timeout: .seconds(2)) { done.value }
        if !finished { consumer.cancel() }
        #expect(finished, "the stream did not end after the suite was released")
        if finished { #expect(await consumer.value.contains("a")) }
    }

    // DefaultsSuiteGuide.md: "`increment` [...] atomic read-modify-write" across processes and instances
    // (Locks.md's table): two processes and this one increment together, none lost.
    @Test func incrementAcrossProcessesLosesNothing() async throws {
        let temp = try TemporaryFolder(prefix: "doc-promise")
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(20))
        async let children = faults.runTogether([["defaults-increment", temp.url.path, "n", "25"],
                                                 ["defaults-increment", temp.url.path, "n", "25"]])
        let suite = DefaultsSuite(suiteName: "n", folder: temp.url)
        var mine: [Int] = []
        for _ in 0..<25 { mine.append(try await suite.async.increment("counter")) }
        let all = try ProcessFaults.incrementValues(try await children) + mine
        #expect(all.sorted() == Array(1...75))
        #expect(DefaultsSuite(suiteName: "n", folder: temp.url).integer(forKey: "counter") == 75)
    }

    // DefaultsSuiteGuide.md: "**In memory.** `DefaultsSuite(suiteName:storage: .memory(MemoryFolder()))` keeps the
    // suite in a `MemoryFolder` with the same semantics"
    @Test func memorySuiteSharesAcrossInstancesAndTouchesNoDisk() throws {
        let memory = MemoryFolder()
        let a = DefaultsSuite(suiteName: "m", storage: .memory(memory))
        let b = DefaultsSuite(suiteName: "m", storage: .memory(memory))
        try a.set(5, forKey: "k")
        #expect(b.integer(forKey: "k") == 5)
        #expect(memory.fileNames == ["m.plist"])
        memory.setContents(Data("junk".utf8), of: "m.plist")
        #expect(throws: FileStorageError.self) { try a.set(6, forKey: "k") }
        #expect(memory.contents(of: "m.plist") == Data("junk".utf8))
    }
}
}

/// Keys heard by a handler on another thread.
final class DocPromiseKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String] = []
    func append(_ key: String) { lock.lock(); keys.append(key); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return keys }
}

final class DocPromiseFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
}
