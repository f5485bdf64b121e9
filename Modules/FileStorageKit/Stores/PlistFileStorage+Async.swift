import Foundation
import PlistCodec

extension PlistFileStorage {
    /// The operations for async code: the same durable, locked writes, waiting for the lock with
    /// `Task.sleep`, so a task waiting for another writer never holds one of the cooperative pool's
    /// threads.
    ///
    /// ```swift
    /// let storage = PlistFileStorage()
    /// try await storage.async.update(at: url, default: Counter(count: 0)) { $0.count += 1 }
    /// ```
    ///
    /// They live on a view of their own rather than as `async` overloads of `write`, `deleteFile`
    /// and `update`: an overload of the same name makes Swift pick the `async` one inside every
    /// `async` function, and WooCommerce's synchronous calls would stop compiling there.
    public var async: AsyncWriters { AsyncWriters(storage: self) }

    /// `PlistFileStorage`'s writers for async code; see `PlistFileStorage.async`.
    ///
    /// ```swift
    /// let writers = PlistFileStorage().async
    /// try await writers.write(Settings(name: "Ada", launches: 0), to: url)
    /// try await writers.deleteFile(at: url)
    /// ```
    ///
    /// Each throws what the synchronous method of the same name throws.
    public struct AsyncWriters: Sendable {
        let storage: PlistFileStorage

        /// `write(_:to:)`, waiting for the lock without holding a thread.
        ///
        /// - Throws: `FileStorageError`, as ``PlistFileStorage/write(_:to:)``.
        public func write<T: Encodable>(_ data: T, to fileURL: URL) async throws {
            let bytes = try PlistFileStorage.encode(data, with: storage.encoder, url: fileURL)
            try AppDirectories.createFolder(fileURL.deletingLastPathComponent())
            try await FileLock.withExclusiveLock(for: fileURL, timeout: storage.lockTimeout) { () async throws in
                try DurableFile.write(bytes, to: fileURL)
            }
        }

        /// `deleteFile(at:)`, waiting for the lock without holding a thread; a missing file is not an
        /// error and writes nothing.
        ///
        /// - Throws: `FileStorageError`: `.lockTimeout`, `.permissionDenied`, `.io`.
        public func deleteFile(at fileURL: URL) async throws {
            guard DurableFile.entryExists(atPath: fileURL.path) else { return }
            try await FileLock.withExclusiveLock(for: fileURL, timeout: storage.lockTimeout) { () async throws in
                try DurableFile.remove(fileURL)
            }
        }

        /// `update(at:default:_:)`: the same locked read-modify-write, waiting without holding a thread.
        ///
        /// - Throws: What `body` threw, or a `FileStorageError`, as
        ///   ``PlistFileStorage/update(at:default:_:)``; nothing is written.
        @discardableResult
        public func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                                       _ body: (inout T) throws -> Void) async throws -> T {
            try AppDirectories.createFolder(fileURL.deletingLastPathComponent())
            return try await FileLock.withExclusiveLock(for: fileURL, timeout: storage.lockTimeout) { () async throws -> T in
                try storage.updateLocked(at: fileURL, default: initial(), body)
            }
        }
    }
}
