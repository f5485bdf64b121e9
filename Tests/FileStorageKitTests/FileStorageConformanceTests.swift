import Testing
import Foundation
import PlistCodec
import TestSupport
@testable import FileStorageKit

/// A value using every property-list kind. Its date is in whole seconds: XML property lists (Apple's
/// included) write dates to the second, so a fraction would not survive the XML storages.
private struct Settings: Codable, Equatable, Sendable {
    var name: String
    var volume: Int
    var ratio: Double
    var enabled: Bool
    var tags: [String]
    var lastOpened: Date
    var blob: Data
    var nested: [String: Int]

    static let sample = Settings(name: "Flashcards ✓", volume: 7, ratio: 0.25, enabled: true, tags: ["a", "b"],
                                 lastOpened: Date(timeIntervalSinceReferenceDate: 700_000_000),
                                 blob: Data([0, 1, 2, 255]), nested: ["x": 1, "y": -2])
}

private struct Counter: Codable, Equatable, Sendable {
    var count: Int
}

private struct Unrelated: Codable, Equatable {
    var identifier: UUID
}

/// Every `FileStorage` implementation, made fresh for one test: the one helper all conformance tests run through.
enum StorageUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case plistXML, plistBinary, inMemory

    var testDescription: String { rawValue }

    /// A new storage, and a temporary folder its files go in (kept alive by the caller).
    func make() throws -> (storage: any FileStorage & Sendable, folder: TemporaryFolder) {
        let folder = try TemporaryFolder(prefix: "fsk-conformance")
        switch self {
        case .plistXML: return (PlistFileStorage(lockTimeout: .seconds(60)), folder)
        case .plistBinary: return (PlistFileStorage(format: .binary, lockTimeout: .seconds(60)), folder)
        case .inMemory: return (InMemoryFileStorage(), folder)
        }
    }

    /// The bytes the storage holds for `url`.
    func bytes(_ storage: any FileStorage, _ url: URL) throws -> Data? {
        if let memory = storage as? InMemoryFileStorage { return memory.contents(of: url) }
        return try DurableFile.readIfPresent(url)
    }
}

@Suite struct FileStorageConformanceTests {
    // MARK: Every implementation

    @Test(arguments: StorageUnderTest.allCases)
    func roundTripsACodableStruct(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        let url = temp.file("settings.plist")
        try storage.write(Settings.sample, to: url)
        let loaded: Settings = try storage.data(for: url)
        #expect(loaded == Settings.sample)
        var changed = Settings.sample
        changed.tags = []
        changed.volume = -1
        try storage.write(changed, to: url)
        #expect(try storage.data(for: url) as Settings == changed)
    }

    @Test(arguments: StorageUnderTest.allCases)
    func missingFileIsNotFound(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        let url = temp.file("absent.plist")
        #expect(throws: FileStorageError.notFound(url)) { try storage.data(for: url) as Settings }
    }

    @Test(arguments: StorageUnderTest.allCases)
    func deleteThenReadIsNotFound(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        let url = temp.file("doomed.plist")
        try storage.write(Counter(count: 1), to: url)
        try storage.deleteFile(at: url)
        #expect(throws: FileStorageError.notFound(url)) { try storage.data(for: url) as Counter }
        #expect(try kind.bytes(storage, url) == nil)
    }

    @Test(arguments: StorageUnderTest.allCases)
    func deletingAMissingFileIsFine(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        try storage.deleteFile(at: temp.file("never-written.plist"))
        try storage.deleteFile(at: temp.folder("no/such/folder").appendingPathComponent("x.plist"))
        #expect(!FileManager.default.fileExists(atPath: temp.folder("no").path))
    }

    @Test(arguments: StorageUnderTest.allCases)
    func updateStartsFromTheDefaultAndPersists(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        let url = temp.file("counter.plist")
        let first = try storage.update(at: url, default: Counter(count: 10)) { $0.count += 1 }
        #expect(first == Counter(count: 11))
        #expect(try storage.data(for: url) as Counter == Counter(count: 11))
        let second = try storage.update(at: url, default: Counter(count: 100)) { $0.count += 1 }
        #expect(second == Counter(count: 12))
        #expect(try storage.data(for: url) as Counter == Counter(count: 12))
    }

    @Test(arguments: StorageUnderTest.allCases)
    func updateWhoseBodyThrowsChangesNothing(_ kind: StorageUnderTest) throws {
        struct Stop: Error {}
        let (storage, temp) = try kind.make()
        let url = temp.file("counter.plist")
        try storage.write(Counter(count: 3), to: url)
        let before = try kind.bytes(storage, url)
        #expect(throws: Stop.self) { try storage.update(at: url, default: Counter(count: 0)) { $0.count = 99; throw Stop() } }
        #expect(try kind.bytes(storage, url) == before)
        #expect(throws: Stop.self) {
            try storage.update(at: temp.file("fresh.plist"), default: Counter(count: 0)) { _ in throw Stop() }
        }
        #expect(try kind.bytes(storage, temp.file("fresh.plist")) == nil)
    }

    @Test(arguments: StorageUnderTest.allCases)
    func wrongTypeIsDecodingFailed(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        let url = temp.file("settings.plist")
        try storage.write(Settings.sample, to: url)
        for attempt in [{ _ = try storage.data(for: url) as Unrelated }, { _ = try storage.data(for: url) as Int },
                        { _ = try storage.data(for: url) as [String] }] {
            do {
                try attempt()
                Issue.record("decoded Settings as another type")
            } catch let FileStorageError.decodingFailed(failed, message) {
                #expect(failed == url)
                #expect(!message.isEmpty)
            } catch {
                Issue.record("expected .decodingFailed, got \(error)")
            }
        }
        // `update` with the wrong type does not overwrite the file either.
        let before = try kind.bytes(storage, url)
        #expect(throws: FileStorageError.self) { try storage.update(at: url, default: Counter(count: 0)) { $0.count += 1 } }
        #expect(try kind.bytes(storage, url) == before)
    }

    @Test(arguments: StorageUnderTest.allCases)
    func concurrentUpdatesFromThreadsAreAtomic(_ kind: StorageUnderTest) throws {
        let (storage, temp) = try kind.make()
        let url = temp.file("counter.plist")
        let perThread = 60
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            for _ in 0..<perThread {
                do {
                    try storage.update(at: url, default: Counter(count: 0)) { $0.count += 1 }
                } catch {
                    Issue.record("update failed: \(error)")
                }
            }
        }
        #expect(try storage.data(for: url) as Counter == Counter(count: 3 * perThread))
    }

    // MARK: PlistFileStorage

    @Test(arguments: [PlistFormat.xml, .binary])
    func filesHoldPlistEncodersBytes(format: PlistFormat) throws {
        let temp = try TemporaryFolder()
        let url = temp.file("settings.plist")
        try PlistFileStorage(format: format).write(Settings.sample, to: url)
        var encoder = PlistEncoder()
        encoder.outputFormat = format
        let expected = try encoder.encode(Settings.sample)
        let written = try DurableFile.read(url)
        #expect(written == expected)
        let prefix = format == .xml ? "<?xml" : "bplist00"
        #expect(written.prefix(prefix.utf8.count) == Data(prefix.utf8))
        // The in-memory storage holds exactly what the file storage writes.
        let memory = InMemoryFileStorage(format: format)
        try memory.write(Settings.sample, to: url)
        #expect(memory.contents(of: url) == written)
    }

    @Test func xmlIsTheDefault() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("default.plist")
        #expect(PlistFileStorage().format == .xml)
        try PlistFileStorage().write(Counter(count: 1), to: url)
        #expect(try DurableFile.read(url).prefix(5) == Data("<?xml".utf8))
        let memory = InMemoryFileStorage()
        try memory.write(Counter(count: 1), to: url)
        #expect(memory.contents(of: url)?.prefix(5) == Data("<?xml".utf8))
    }

    @Test func foldersAreCreatedOnDemandAndFilesArePrivate() throws {
        let temp = try TemporaryFolder()
        let url = temp.folder("a/b/c").appendingPathComponent("deep.plist")
        try PlistFileStorage().write(Counter(count: 1), to: url)
        for relative in ["a", "a/b", "a/b/c"] { #expect(permissionBits(temp.folder(relative)) == 0o700, "\(relative)") }
        #expect(permissionBits(url) == 0o600)
        let other = temp.folder("x/y").appendingPathComponent("updated.plist")
        try PlistFileStorage().update(at: other, default: Counter(count: 0)) { $0.count = 5 }
        #expect(permissionBits(other) == 0o600)
        #expect(permissionBits(temp.folder("x")) == 0o700)
        // Only the file and its lock sidecar are left behind.
        #expect(try temp.entries(in: "a/b/c") == [".deep.plist.lock", "deep.plist"])
    }

    @Test(arguments: [
        ("truncated", Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>count</key>\n\t<integer>4".utf8)),
        ("garbage", Data("this is not a property list at all".utf8)),
        ("truncated binary", Data("bplist00".utf8) + Data([0xD1, 0x01, 0x02])),
    ])
    func updateOnACorruptFileThrowsCorruptAndLeavesItByteIdentical(name: String, bytes: Data) throws {
        let temp = try TemporaryFolder()
        let url = temp.file("counter.plist")
        try bytes.write(to: url)
        #expect(chmod(url.path, 0o644) == 0)
        let storage = PlistFileStorage(lockTimeout: .seconds(60))
        for attempt in [{ _ = try storage.update(at: url, default: Counter(count: 0)) { $0.count += 1 } },
                        { _ = try storage.data(for: url) as Counter }] {
            do {
                try attempt()
                Issue.record("\(name): a corrupt file was accepted")
            } catch let FileStorageError.corrupt(failed, _) {
                #expect(failed == url)
            } catch {
                Issue.record("\(name): expected .corrupt, got \(error)")
            }
            #expect(try DurableFile.read(url) == bytes, "\(name)")
            #expect(permissionBits(url) == 0o644)
        }
    }
}
