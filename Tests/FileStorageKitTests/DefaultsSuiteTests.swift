import Testing
import Foundation
import PlistCodec
import Synchronization
import TestSupport
@testable import FileStorageKit
#if canImport(Glibc)
import Glibc
#endif

private struct Profile: Codable, Equatable {
    var name: String
    var level: Int
    var badges: [String]
}

/// A shareable flag.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Keys seen on a `changes()` stream, collected by a task that reads it.
private final class KeyLog: Sendable {
    private let keys = Mutex<[String]>([])
    func append(_ key: String) { keys.withLock { $0.append(key) } }
    var all: [String] { keys.withLock { $0 } }
}

@Suite struct DefaultsSuiteTests {
    private func suite(_ temp: TemporaryFolder, _ name: String = "com.example.test") -> DefaultsSuite {
        DefaultsSuite(suiteName: name, folder: temp.folder("Preferences"), lockTimeout: .seconds(60))
    }

    /// The same suite in a `MemoryFolder`, for tests where no real file is the point.
    private func suite(_ memory: MemoryFolder, _ name: String = "com.example.test") -> DefaultsSuite {
        DefaultsSuite(suiteName: name, storage: .memory(memory), lockTimeout: .seconds(60))
    }

    @Test func typedValuesRoundTrip() throws {
        let temp = MemoryFolder()   // no real file is the point here
        let defaults = suite(temp)
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789)  // whole seconds: see fractionalDates…
        let blob = Data([0, 0xFF, 0x10, 0x80])
        try defaults.set(true, forKey: "bool")
        try defaults.set(-42, forKey: "int")
        try defaults.set(2.5, forKey: "double")
        try defaults.set("héllo", forKey: "string")
        try defaults.set(blob, forKey: "data")
        try defaults.set(date, forKey: "date")
        try defaults.set(["x", "y", ""], forKey: "strings")
        try defaults.set(encoding: Profile(name: "Ada", level: 3, badges: ["first"]), forKey: "profile")

        // The same values through this instance and through a fresh one reading the file.
        for reader in [defaults, suite(temp)] {
            #expect(reader.bool(forKey: "bool") == true)
            #expect(reader.integer(forKey: "int") == -42)
            #expect(reader.double(forKey: "double") == 2.5)
            #expect(reader.string(forKey: "string") == "héllo")
            #expect(reader.data(forKey: "data") == blob)
            #expect(reader.date(forKey: "date") == date)
            #expect(reader.stringArray(forKey: "strings") == ["x", "y", ""])
            #expect(try reader.value(Profile.self, forKey: "profile") == Profile(name: "Ada", level: 3, badges: ["first"]))
            #expect(reader.dictionary(forKey: "profile")?["level"] == .int(3))
            #expect(try reader.value(Profile.self, forKey: "absent") == nil)
            #expect(reader.object(forKey: "absent") == nil)
            #expect(reader.integer(forKey: "absent") == 0)
            #expect(reader.bool(forKey: "absent") == false)
        }
        #expect(throws: FileStorageError.self) { try defaults.value(Profile.self, forKey: "string") }
    }

    /// Issue 11, item 7: `UserDefaults` keeps a date's fraction of a second (Apple's preference files
    /// are binary); so does the suite, whose new files are binary too: in this instance, in another,
    /// and after the file is read again.
    @Test func datesKeepTheirFractionOfASecond() throws {
        let temp = MemoryFolder()   // no real file is the point here
        let defaults = suite(temp)
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.25)
        try defaults.set(date, forKey: "date")
        #expect(defaults.date(forKey: "date") == date)
        try defaults.reload()
        #expect(defaults.date(forKey: "date") == date)
        #expect(suite(temp).date(forKey: "date") == date)
        let now = Date()
        try defaults.set(now, forKey: "now")
        #expect(suite(temp).date(forKey: "now") == now)
    }

    /// A suite chosen as XML (or whose file a person wrote as XML) stays XML, whose dates hold whole
    /// seconds: the instance serves what the file holds, so every instance and process agrees.
    @Test func anXMLSuiteServesDatesAsTheFileHoldsThem() throws {
        let temp = try TemporaryFolder()
        let defaults = DefaultsSuite(suiteName: "xml", folder: temp.folder("Preferences"), newFileFormat: .xml)
        try defaults.set(Date(timeIntervalSinceReferenceDate: 123_456_789.25), forKey: "date")
        let whole = Date(timeIntervalSinceReferenceDate: 123_456_789)
        #expect(defaults.date(forKey: "date") == whole)
        #expect(DefaultsSuite(suiteName: "xml", folder: temp.folder("Preferences")).date(forKey: "date") == whole)
    }

    @Test func registeredDefaultsShowThroughAreOverriddenAndStayOffDisk() throws {
        let temp = try TemporaryFolder()
        let defaults = suite(temp)
        defaults.register(defaults: ["volume": .int(5), "theme": .string("dark")])
        #expect(defaults.integer(forKey: "volume") == 5)
        #expect(defaults.string(forKey: "theme") == "dark")
        #expect(!FileManager.default.fileExists(atPath: defaults.url.path))

        try defaults.set(9, forKey: "volume")
        #expect(defaults.integer(forKey: "volume") == 9)
        let onDisk = try PlistValue(parsing: DurableFile.read(defaults.url))
        #expect(onDisk == .dictionary(["volume": .int(9)]))

        try defaults.removeObject(forKey: "volume")
        #expect(defaults.integer(forKey: "volume") == 5)
        #expect(try PlistValue(parsing: DurableFile.read(defaults.url)) == .dictionary([:]))

        // Registration belongs to the instance: another one does not see it.
        #expect(suite(temp).object(forKey: "theme") == nil)
    }

    @Test func dictionaryRepresentationMergesStoredOverRegistered() throws {
        let temp = MemoryFolder()   // no real file is the point here
        let defaults = suite(temp)
        defaults.register(defaults: ["a": .int(1), "b": .int(2)])
        try defaults.set(20, forKey: "b")
        try defaults.set("c", forKey: "c")
        #expect(defaults.dictionaryRepresentation() == ["a": .int(1), "b": .int(20), "c": .string("c")])
    }

    @Test func fileIsBinaryWithSortedKeysAsFoundationWritesIt() throws {
        let temp = try TemporaryFolder()
        let defaults = suite(temp)
        for key in ["zeta", "Alpha", "mid", "beta", "Zulu", "10", "2"] { try defaults.set("v-\(key)", forKey: key) }
        let bytes = try DurableFile.read(defaults.url)
        #expect(bytes.prefix(8) == Data("bplist00".utf8))
        #expect(defaults.fileFormat == .binary)
        // Foundation's own encoder, an independent implementation, writes the same bytes for the same dictionary.
        let all = Dictionary(uniqueKeysWithValues: ["zeta", "Alpha", "mid", "beta", "Zulu", "10", "2"].map { ($0, "v-\($0)") })
        #expect(bytes == (try PropertyListEncoder().encode(all)))
        #expect(permissionBits(defaults.url) == 0o600)
        #expect(permissionBits(temp.folder("Preferences")) == 0o700)
    }

    /// A file someone wrote as XML stays XML when the suite rewrites it.
    @Test func anXMLFileKeepsItsFormat() throws {
        let temp = try TemporaryFolder()
        let defaults = suite(temp)
        try FileManager.default.createDirectory(at: defaults.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let foundation = PropertyListEncoder()
        foundation.outputFormat = .xml
        try foundation.encode(["handEdited": "yes"]).write(to: defaults.url)
        for key in ["zeta", "Alpha", "mid", "beta", "Zulu", "10", "2"] { try defaults.set("v-\(key)", forKey: key) }
        let bytes = try DurableFile.read(defaults.url)
        #expect(bytes.prefix(5) == Data("<?xml".utf8))
        #expect(defaults.fileFormat == .xml)
        var all = Dictionary(uniqueKeysWithValues: ["zeta", "Alpha", "mid", "beta", "Zulu", "10", "2"].map { ($0, "v-\($0)") })
        all["handEdited"] = "yes"
        let expected = try foundation.encode(all)
        #expect(bytes == expected, "\(String(decoding: bytes, as: UTF8.self))")
        // And the keys appear in sorted order, whatever order they were set in.
        let text = String(decoding: bytes, as: UTF8.self)
        let keys = text.components(separatedBy: "<key>").dropFirst().compactMap { $0.components(separatedBy: "</key>").first }
        #expect(keys == ["10", "2", "Alpha", "Zulu", "beta", "handEdited", "mid", "zeta"])
    }

    @Test func secondInstanceSeesAValueSetByTheFirst() throws {
        let temp = MemoryFolder()   // no real file is the point here
        let writer = suite(temp)
        let reader = suite(temp)
        #expect(reader.string(forKey: "greeting") == nil)
        try writer.set("hello", forKey: "greeting")
        let started = ContinuousClock.now
        let seen = waitUntil(timeout: .seconds(5), interval: .microseconds(200)) { reader.string(forKey: "greeting") == "hello" }
        let delay = ContinuousClock.now - started
        print("DefaultsSuiteTests: a second instance saw the value after \(delay) (promise: within 100 ms)")
        #expect(seen)
    }

    @Test func concurrentUpdatesFromTwoInstancesAreAtomic() throws {
        let temp = MemoryFolder()   // no real file is the point here
        let suites = [suite(temp), suite(temp)]
        let perThread = 150
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            for _ in 0..<perThread {
                do {
                    try suites[i].update(forKey: "count") { $0 = .int(($0?.intValue ?? 0) + 1) }
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        let fresh = suite(temp)
        #expect(fresh.integer(forKey: "count") == 2 * perThread)
        #expect(waitUntil { suites.allSatisfy { $0.integer(forKey: "count") == 2 * perThread } })
    }

    @Test func anotherInstanceSettingDoesNotLoseThisInstancesKeys() throws {
        let temp = try TemporaryFolder()
        let first = suite(temp), second = suite(temp)
        try first.set("1", forKey: "a")
        try second.set("2", forKey: "b")
        try first.set("3", forKey: "c")
        let file = try PlistValue(parsing: DurableFile.read(first.url)).dictionaryValue
        #expect(file == ["a": .string("1"), "b": .string("2"), "c": .string("3")])
        #expect(waitUntil { first.string(forKey: "b") == "2" && second.string(forKey: "c") == "3" })
        #expect(second.string(forKey: "a") == "1")
    }

    @Test func incrementIsAtomicAndReturnsTheNewValue() throws {
        let temp = MemoryFolder()   // no real file is the point here
        let defaults = suite(temp)
        #expect(try defaults.increment("launches") == 1)
        #expect(try defaults.increment("launches", by: 10) == 11)
        #expect(try defaults.increment("launches", by: -12) == -1)
        #expect(defaults.integer(forKey: "launches") == -1)
        #expect(suite(temp).integer(forKey: "launches") == -1)
    }

    @Test func changesYieldsKeysFromThisAndAnotherInstance() async throws {
        let temp = MemoryFolder()   // no real file is the point here
        let observed = suite(temp), other = suite(temp)
        let log = KeyLog()
        let stream = observed.changes()
        let reader = Task {
            for await key in stream { log.append(key) }
        }
        defer { reader.cancel() }
        try await observed.async.set(1, forKey: "mine")
        try await other.async.set(2, forKey: "theirs")
        // The suite's watcher is a task on the cooperative pool (two threads here), which the
        // synchronous tests running in parallel can hold for many seconds: a CI run once took over
        // 10 s to get to it. The wait ends as soon as the keys arrive, so the deadline is generous.
        let deadline = ContinuousClock.now + .seconds(60)
        while !(log.all.contains("mine") && log.all.contains("theirs")) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(log.all.contains("mine"))
        #expect(log.all.contains("theirs"))
        // Setting the same value again changes nothing on disk and is not reported; a later key is.
        try await observed.async.set(1, forKey: "mine")
        try await observed.async.set(3, forKey: "marker")
        let markerDeadline = ContinuousClock.now + .seconds(60)
        while !log.all.contains("marker") && ContinuousClock.now < markerDeadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(log.all.contains("marker"))
        #expect(log.all.filter { $0 == "mine" }.count == 1, "\(log.all)")
    }

    /// A stream whose suite is gone can never yield again; it should end rather than leave its reader waiting.
    @Test func changesEndWhenTheSuiteIsReleased() async throws {
        let temp = MemoryFolder()   // no real file is the point here
        var defaults: DefaultsSuite? = suite(temp)
        let stream = try #require(defaults?.changes())
        let ended = Flag()
        let reader = Task {
            for await _ in stream {}
            ended.value.store(true, ordering: .releasing)
        }
        defer { reader.cancel() }
        weak let released = defaults
        defaults = nil
        // The polling task holds the suite only while it checks for changes.
        #expect(await waitUntil { released == nil })
        let deadline = ContinuousClock.now + .seconds(60)
        while !ended.isSet && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(ended.isSet)
    }

    @Test func standardSuiteIsNamedAfterTheProcess() {
        #expect(DefaultsSuite.programName == ProcessInfo.processInfo.processName)
        #expect(DefaultsSuite.standard.suiteName == ProcessInfo.processInfo.processName)
        #expect(DefaultsSuite.standard.url.lastPathComponent == AppDirectories.safeComponent(ProcessInfo.processInfo.processName) + ".plist")
    }

    /// Opening a suite creates nothing on disk; the first write creates the folder, and from then on
    /// another instance's changes are seen promptly.
    @Test func openingCreatesNothingAndTheFirstWriteMakesTheFolder() throws {
        let temp = try TemporaryFolder()
        let folder = temp.url.appendingPathComponent("later/prefs", isDirectory: true)
        let first = DefaultsSuite(suiteName: "lazy", folder: folder)
        let second = DefaultsSuite(suiteName: "lazy", folder: folder)
        #expect(first.string(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        try first.set("one", forKey: "k")
        #expect(FileManager.default.fileExists(atPath: first.url.path))
        #expect(waitUntil(timeout: .seconds(5)) { second.string(forKey: "k") == "one" })
        try second.set("two", forKey: "k")
        #expect(waitUntil(timeout: .seconds(5)) { first.string(forKey: "k") == "two" })
    }

    @Test func directoriesInitializerUsesThePreferencesFolder() throws {
        let temp = try TemporaryFolder()
        let dirs = AppDirectories(appName: "Example", root: temp.url)
        let defaults = DefaultsSuite(suiteName: "com.example.app", directories: dirs)
        #expect(defaults.url == dirs.preferences.appendingPathComponent("com.example.app.plist").standardizedFileURL)
        try defaults.set(true, forKey: "onboarded")
        #expect(FileManager.default.fileExists(atPath: temp.folder("Preferences").appendingPathComponent("com.example.app.plist").path))
    }

    /// Gets are served from memory while the file is unchanged.
    ///
    /// The file's bytes are changed in place through a descriptor that stays open: that raises no event
    /// the monitor listens for (no close-after-write, no rename), so a get that read the disk would see
    /// the new bytes and a get served from memory would not. Closing the descriptor then raises
    /// `IN_CLOSE_WRITE`, and the new value must show up.
    @Test func getsDoNotReadTheFileWhileItIsUnchanged() throws {
        let temp = try TemporaryFolder()
        let defaults = suite(temp)
        try defaults.set("x", forKey: "warm-up")  // the first write creates the folder inotify watches
        let probe = FileChangeMonitor(url: defaults.url)
        try #require(probe.usesInotify, "this check needs inotify: the polling fallback notices in-place changes")
        let before = probe.changeToken
        try defaults.set("aaaa", forKey: "word")
        // Wait until the write's own event has been counted (the probe and the suite share one reader
        // thread and are bumped together), then let the suite absorb it.
        #expect(waitUntil { probe.changeToken != before })
        #expect(defaults.string(forKey: "word") == "aaaa")

        let original = try DurableFile.read(defaults.url)
        let range = try #require(original.range(of: Data("aaaa".utf8)))
        let fd = open(defaults.url.path, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        var closed = false
        defer { if !closed { close(fd) } }
        let written = Data("bbbb".utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, 4, off_t(range.lowerBound)) }
        try #require(written == 4)
        #expect(try DurableFile.read(defaults.url).range(of: Data("bbbb".utf8)) != nil)

        for _ in 0..<1000 { #expect(defaults.string(forKey: "word") == "aaaa") }
        #expect(defaults.dictionaryRepresentation()["word"] == .string("aaaa"))

        close(fd)
        closed = true
        #expect(waitUntil { defaults.string(forKey: "word") == "bbbb" })
    }

    /// A suite file that is a symbolic link to a file in the same folder is written through (as
    /// `DurableFile` allows), but another instance never hears of the change: see `ChangeMonitorTests`.
    @Test func secondInstanceSeesChangesWhenTheFileIsASymlink() throws {
        let temp = try TemporaryFolder()
        let folder = temp.folder("Preferences")
        try AppDirectories.createFolder(folder)
        try DurableFile.write(PlistValue.dictionary([:]).serialized(as: .xml), to: folder.appendingPathComponent("real.plist"))
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("com.example.test.plist").path,
                                                   withDestinationPath: "real.plist")
        let writer = suite(temp), reader = suite(temp)
        #expect(reader.string(forKey: "k") == nil)
        try writer.set("v", forKey: "k")
        #expect(suite(temp).string(forKey: "k") == "v")
        #expect(waitUntil(timeout: .seconds(2)) { reader.string(forKey: "k") == "v" })
    }

    @Test func corruptFileIsNeverOverwrittenAndReadsKeepTheLastGoodValues() throws {
        let temp = try TemporaryFolder()
        let defaults = suite(temp)
        try defaults.set("kept", forKey: "key")
        #expect(defaults.string(forKey: "key") == "kept")
        let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>key</key>".utf8)
        try garbage.write(to: defaults.url)
        #expect(throws: FileStorageError.self) { try defaults.reload() }
        #expect(defaults.string(forKey: "key") == "kept")
        #expect(defaults.lastLoadError != nil)
        do {
            try defaults.set("new", forKey: "other")
            Issue.record("a write over a corrupt file succeeded")
        } catch FileStorageError.corrupt(let url, _) {
            #expect(url == defaults.url)
        }
        #expect(try DurableFile.read(defaults.url) == garbage)
    }
}

/// The async writers (chosen by the compiler in async code) wait for the lock with `Task.sleep`;
/// many more contending tasks than pool threads must all finish with an exact count.
@Suite struct AsyncWriterTests {
    @Test func manyTasksIncrementThroughTheAsyncWriters() async throws {
        let temp = try TemporaryFolder()
        // The lock is not fair (waiters back off at random), so one of 24 tasks may wait long on a
        // loaded 2-core run: a generous timeout, since finishing, not speed, is the point.
        let suite = DefaultsSuite(suiteName: "async", folder: temp.url, lockTimeout: .seconds(120))
        let storage = PlistFileStorage(lockTimeout: .seconds(120))
        let file = temp.file("counter.plist")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    for _ in 0..<10 {
                        try await suite.async.increment("n")
                        try await storage.async.update(at: file, default: [String: Int]()) { $0["n", default: 0] += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(suite.integer(forKey: "n") == 240)
        #expect(DefaultsSuite(suiteName: "async", folder: temp.url).integer(forKey: "n") == 240)
        let counts: [String: Int] = try storage.data(for: file)
        #expect(counts["n"] == 240)
    }
}
