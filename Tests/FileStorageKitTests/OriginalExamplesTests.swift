import Foundation
import Testing
import FileStorageKit
import TestSupport

// WooCommerce's Storage README (../shared/originals/001_ac83c20585ea3185.txt, "File storage") names a
// `FileStorage` protocol with a `PListFileStorage` implementation for local app settings; it shows no
// code of its own, so the calls below are the ones its protocol declares, written as their app code
// writes them. The file lives wherever the app's URL points: on Linux, `AppDirectories` resolves the
// folders (FileStorageKit.docc's `PortingFromWooCommerce.md` and `AppDirectoriesGuide.md`).

/// A settings value as WooCommerce's app-local settings keep it.
private struct GeneralAppSettings: Codable, Equatable {
    var installationDate: Date?
    var feedbacks: [String: Int]
    var isViewAddOnsSwitchEnabled: Bool
}

/// An app's own storage with exactly WooCommerce's three methods: no `Sendable`, no `update`.
private final class DiskStorage: FileStorage {
    var writes = 0

    func data<T: Decodable>(for fileURL: URL) throws -> T {
        try PropertyListDecoder().decode(T.self, from: Data(contentsOf: fileURL))
    }

    func write<T: Encodable>(_ data: T, to fileURL: URL) throws {
        writes += 1
        try PropertyListEncoder().encode(data).write(to: fileURL)
    }

    func deleteFile(at fileURL: URL) throws {
        try FileManager.default.removeItem(at: fileURL)
    }
}

/// The same as a struct.
private struct MemoryStorage: FileStorage {
    final class Box { var files: [URL: Data] = [:] }
    let box = Box()

    func data<T: Decodable>(for fileURL: URL) throws -> T {
        guard let bytes = box.files[fileURL] else { throw FileStorageError.notFound(fileURL) }
        return try PropertyListDecoder().decode(T.self, from: bytes)
    }

    func write<T: Encodable>(_ data: T, to fileURL: URL) throws {
        box.files[fileURL] = try PropertyListEncoder().encode(data)
    }

    func deleteFile(at fileURL: URL) throws {
        box.files[fileURL] = nil
    }
}

/// An app's own storage that reports every read failure with one error of its own, as WooCommerce's
/// `PListFileStorage` does (`fileReadFailed`), so the default `update` cannot tell a missing file
/// from the error alone.
private struct WrappingStorage: FileStorage {
    enum Failure: Error { case fileReadFailed }

    func data<T: Decodable>(for fileURL: URL) throws -> T {
        do {
            return try PropertyListDecoder().decode(T.self, from: Data(contentsOf: fileURL))
        } catch {
            throw Failure.fileReadFailed
        }
    }

    func write<T: Encodable>(_ data: T, to fileURL: URL) throws {
        try PropertyListEncoder().encode(data).write(to: fileURL)
    }

    func deleteFile(at fileURL: URL) throws {
        try FileManager.default.removeItem(at: fileURL)
    }
}

@Suite struct OriginalExamplesTests {
    private static let sample = GeneralAppSettings(installationDate: Date(timeIntervalSinceReferenceDate: 700_000_000),
                                                   feedbacks: ["general": 2], isViewAddOnsSwitchEnabled: true)

    /// The app's calls, synchronous, with WooCommerce's spelling of the type.
    private func portedCalls(in folder: URL) throws -> GeneralAppSettings {
        let fileStorage = PListFileStorage()
        let fileURL = folder.appendingPathComponent("general-app-settings.plist")
        try fileStorage.write(Self.sample, to: fileURL)
        let settings: GeneralAppSettings = try fileStorage.data(for: fileURL)
        return settings
    }

    @Test func wooCommerceSpellingWorksFromSynchronousCode() throws {
        let temp = try TemporaryFolder(prefix: "original-filestorage")
        #expect(try portedCalls(in: temp.url) == Self.sample)
        // The file is a property list Foundation's own decoder reads.
        let bytes = try Data(contentsOf: temp.file("general-app-settings.plist"))
        #expect(try PropertyListDecoder().decode(GeneralAppSettings.self, from: bytes) == Self.sample)
        // A new instance reads it back; deleting it leaves nothing.
        let again: GeneralAppSettings = try PlistFileStorage().data(for: temp.file("general-app-settings.plist"))
        #expect(again == Self.sample)
        try PListFileStorage().deleteFile(at: temp.file("general-app-settings.plist"))
        #expect(try temp.entries().filter { !$0.hasPrefix(".") } == [])
    }

    /// In an `async` function the same synchronous calls compile unchanged (no `async` overload of
    /// the same name takes them over) and behave the same.
    @Test func wooCommerceCallsCompileAndWorkInAsyncCode() async throws {
        let temp = try TemporaryFolder(prefix: "original-filestorage-async")
        let fileStorage = PListFileStorage()
        let fileURL = temp.file("settings.plist")
        try fileStorage.write(Self.sample, to: fileURL)
        let settings: GeneralAppSettings = try fileStorage.data(for: fileURL)
        #expect(settings == Self.sample)
        try fileStorage.update(at: fileURL, default: Self.sample) { $0.feedbacks["general"] = 3 }
        try await fileStorage.async.update(at: fileURL, default: Self.sample) { $0.feedbacks["orders"] = 1 }
        let updated: GeneralAppSettings = try fileStorage.data(for: fileURL)
        #expect(updated.feedbacks == ["general": 3, "orders": 1])
        try fileStorage.deleteFile(at: fileURL)
        #expect(throws: FileStorageError.notFound(fileURL)) { try fileStorage.data(for: fileURL) as GeneralAppSettings }
    }

    @Test func valuesSurviveANewProcess() async throws {
        let temp = try TemporaryFolder(prefix: "original-filestorage-process")
        let fileURL = temp.file("flags.plist")
        try PListFileStorage().write(["fromTest": 1], to: fileURL)
        // Another process adds its key under the lock; this process then reads both.
        let child = try ChildProcess.start(try ChildProcess.storageProbe(), ["storage-set-key", fileURL.path, "fromChild", "2"])
        let end = try await child.waitForExit(deadline: .now + .seconds(180))
        #expect(end == .exited(0), "\(child.error("\(end)"))")
        let flags: [String: Int] = try PListFileStorage().data(for: fileURL)
        #expect(flags == ["fromTest": 1, "fromChild": 2])
    }

    @Test func anAppsOwnClassWithTheThreeMethodsConforms() throws {
        let temp = try TemporaryFolder(prefix: "original-filestorage-own")
        let own = DiskStorage()
        let storage: any FileStorage = own
        let url = temp.file("own.plist")
        try storage.write(Self.sample, to: url)
        #expect(try storage.data(for: url) as GeneralAppSettings == Self.sample)
        // The default `update` reads with its `data(for:)` and writes with its `write(_:to:)`.
        try storage.update(at: url, default: Self.sample) { $0.isViewAddOnsSwitchEnabled = false }
        #expect(try (storage.data(for: url) as GeneralAppSettings).isViewAddOnsSwitchEnabled == false)
        #expect(own.writes == 2)
        // A missing file starts from the default, although this type reports it with Foundation's error.
        let fresh = try storage.update(at: temp.file("fresh.plist"), default: Self.sample) { $0.feedbacks = [:] }
        #expect(fresh.feedbacks.isEmpty)
        try storage.deleteFile(at: url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func anAppsOwnStructWithTheThreeMethodsConforms() throws {
        let storage = MemoryStorage()
        let url = URL(fileURLWithPath: "/nonexistent/memory.plist")
        let counted = try storage.update(at: url, default: ["launches": 0]) { $0["launches", default: 0] += 1 }
        #expect(counted == ["launches": 1])
        #expect(try storage.data(for: url) as [String: Int] == ["launches": 1])
    }

    /// The default `update` starts from its default only when there is no file: bytes that do not
    /// decode are an error, never replaced by the default.
    @Test func theDefaultUpdateNeverReplacesBytesItCannotRead() throws {
        let garbage = Data("not a property list".utf8)
        // A storage that is not on disk: no file exists at its URL, but its bytes do.
        let memory = MemoryStorage()
        let url = URL(fileURLWithPath: "/nonexistent/memory.plist")
        memory.box.files[url] = garbage
        #expect(throws: DecodingError.self) { try memory.update(at: url, default: ["launches": 0]) { $0["launches", default: 0] += 1 } }
        #expect(memory.box.files[url] == garbage)

        // A storage with one error for everything: a missing file starts from the default, a corrupt one throws.
        let temp = try TemporaryFolder(prefix: "original-filestorage-wrapping")
        let wrapping = WrappingStorage()
        let fresh = try wrapping.update(at: temp.file("fresh.plist"), default: ["launches": 0]) { $0["launches", default: 0] += 1 }
        #expect(fresh == ["launches": 1])
        #expect(try wrapping.data(for: temp.file("fresh.plist")) as [String: Int] == ["launches": 1])
        try garbage.write(to: temp.file("corrupt.plist"))
        #expect(throws: WrappingStorage.Failure.fileReadFailed) {
            try wrapping.update(at: temp.file("corrupt.plist"), default: ["launches": 0]) { $0["launches", default: 0] += 1 }
        }
        #expect(try Data(contentsOf: temp.file("corrupt.plist")) == garbage)
    }

    /// Through `any FileStorage`, `update` still reaches `PlistFileStorage`'s locked version: with
    /// the file's lock held elsewhere it waits and times out instead of writing beside the holder.
    @Test func updateThroughTheProtocolTakesTheLock() throws {
        let temp = try TemporaryFolder(prefix: "original-filestorage-lock")
        let url = temp.file("locked.plist")
        let storage: any FileStorage & Sendable = PListFileStorage(lockTimeout: .milliseconds(200))
        try storage.write(["n": 1], to: url)
        try FileLock.withExclusiveLock(for: url) {
            let thread = ThreadResult { try storage.update(at: url, default: ["n": 0]) { $0["n", default: 0] += 1 } }
            let outcome = try #require(thread.wait(seconds: 30), "the update neither returned nor timed out")
            guard case .failure(let error) = outcome, let storageError = error as? FileStorageError,
                  case .lockTimeout = storageError else {
                Issue.record("expected .lockTimeout, got \(outcome)")
                return
            }
        }
        #expect(try storage.data(for: url) as [String: Int] == ["n": 1])
    }
}

/// Runs `body` on a thread of its own (the lock is per open file description, so another thread of
/// this process contends with the holder as another process would).
private final class ThreadResult<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            result = Result { try body() }
            done.signal()
        }
        thread.start()
    }

    func wait(seconds: Double) -> Result<T, any Error>? {
        done.wait(timeout: .now() + seconds) == .success ? result : nil
    }
}
