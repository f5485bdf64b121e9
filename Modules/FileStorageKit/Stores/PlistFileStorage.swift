import Foundation
import PlistCodec

/// WooCommerce's spelling of `PlistFileStorage`, so their code ports unchanged.
public typealias PListFileStorage = PlistFileStorage

/// A `FileStorage` that keeps each value in a property-list file: XML by default (as WooCommerce's
/// `PListFileStorage`, which is also a name for this type), binary on request.
///
/// Async code calls the same operations through `async`, which waits for the lock without
/// holding a thread: `try await storage.async.update(at: url, default: Counter()) { $0.count += 1 }`.
/// The synchronous methods keep their names in async code too, so ported calls compile unchanged.
///
/// Every write is durable and atomic (`DurableFile`) and taken under the file's exclusive lock
/// (`FileLock`), so concurrent writers in any process never interleave and a crash never leaves a
/// half-written file. A file that cannot be decoded is reported as `.corrupt` and never overwritten
/// by `update`.
///
/// ```swift
/// struct Settings: Codable { var name: String; var launches: Int }
///
/// let storage = PlistFileStorage()
/// let url = try AppDirectories(appName: "Example").applicationSupport(creating: true)
///     .appendingPathComponent("settings.plist")
/// try storage.update(at: url, default: Settings(name: "Ada", launches: 0)) { $0.launches += 1 }
/// let settings: Settings = try storage.data(for: url)
/// ```
public struct PlistFileStorage: FileStorage, Sendable {
    /// The format new files are written in.
    public var format: PlistFormat
    /// How long to wait for another writer's lock.
    public var lockTimeout: Duration

    /// Creates a storage writing `format` files (XML by default).
    ///
    /// - Parameters:
    ///   - format: The format of the files it writes; it reads any format.
    ///   - lockTimeout: How long a write waits for another writer's lock before throwing `.lockTimeout`.
    public init(format: PlistFormat = .xml, lockTimeout: Duration = FileLock.defaultTimeout) {
        self.format = format
        self.lockTimeout = lockTimeout
    }

    var encoder: PlistEncoder {
        var e = PlistEncoder()
        e.outputFormat = format
        return e
    }

    /// Reads and decodes the file at `fileURL` (XML, binary or OpenStep), without taking the lock: a
    /// durable write replaces the file whole, so a read sees one version or the other.
    ///
    /// - Throws: `FileStorageError`: `.notFound`, `.corrupt` (not a property list), `.decodingFailed`
    ///   (a property list, but not a `T`), `.permissionDenied`, `.io`.
    public func data<T: Decodable>(for fileURL: URL) throws -> T {
        try Self.decode(T.self, from: DurableFile.read(fileURL), url: fileURL)
    }

    /// Encodes `data` and replaces the file at `fileURL` with it, durably and under its lock, creating
    /// its folder when missing.
    ///
    /// - Throws: `FileStorageError`: `.encodingFailed` (nothing is written), `.lockTimeout`,
    ///   `.permissionDenied`, `.diskFull`, `.symlinkOutsideFolder`, `.io`; the file keeps its previous
    ///   contents.
    public func write<T: Encodable>(_ data: T, to fileURL: URL) throws {
        let bytes = try Self.encode(data, with: encoder, url: fileURL)
        try AppDirectories.createFolder(fileURL.deletingLastPathComponent())
        try FileLock.withExclusiveLock(for: fileURL, timeout: lockTimeout) {
            try DurableFile.write(bytes, to: fileURL)
        }
    }

    /// Removes the file durably, under its lock. A missing file is not an error, and removing one
    /// writes nothing: no lock file, so it works in a folder this process may not write to. The lock
    /// file of a file that existed stays (see `FileLock`).
    ///
    /// - Throws: `FileStorageError`: `.lockTimeout`, `.permissionDenied`, `.io`.
    public func deleteFile(at fileURL: URL) throws {
        // Without the file there is nothing to exclude anyone from; a write racing with this call
        // simply comes after it.
        guard DurableFile.entryExists(atPath: fileURL.path) else { return }
        try FileLock.withExclusiveLock(for: fileURL, timeout: lockTimeout) {
            try DurableFile.remove(fileURL)
        }
    }

    /// Reads the file under its exclusive lock (or starts from `initial` when there is none), lets
    /// `body` change the value, and writes it durably before the lock is released: no other writer of
    /// this toolkit, in any process, comes in between.
    ///
    /// - Parameters:
    ///   - fileURL: The file; its folder is created when missing.
    ///   - initial: The value to start from when there is no file.
    ///   - body: Changes the value; keep it short, the file is locked meanwhile.
    /// - Returns: The value written.
    /// - Throws: What `body` threw, or a `FileStorageError`: `.corrupt` or `.decodingFailed` for a
    ///   file that does not decode (it is never overwritten), `.encodingFailed`, `.lockTimeout`, and
    ///   the write's `.permissionDenied`, `.diskFull`, `.symlinkOutsideFolder`, `.io`. Nothing is
    ///   written then.
    @discardableResult
    public func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                                   _ body: (inout T) throws -> Void) throws -> T {
        try AppDirectories.createFolder(fileURL.deletingLastPathComponent())
        return try FileLock.withExclusiveLock(for: fileURL, timeout: lockTimeout) {
            try updateLocked(at: fileURL, default: initial(), body)
        }
    }

    /// The read-modify-write of `update`; the caller holds the lock.
    func updateLocked<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                                          _ body: (inout T) throws -> Void) throws -> T {
        var value: T
        if let bytes = try DurableFile.readIfPresent(fileURL) {
            value = try Self.decode(T.self, from: bytes, url: fileURL)
        } else {
            value = initial()
        }
        try body(&value)
        try DurableFile.write(try Self.encode(value, with: encoder, url: fileURL), to: fileURL)
        return value
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: Data, url: URL) throws -> T {
        do {
            return try PlistDecoder().decode(type, from: bytes)
        } catch {
            if let malformed = PlistError.found(in: error) { throw FileStorageError.corrupt(url, malformed) }
            throw FileStorageError.decodingFailed(url, "\(error)")
        }
    }

    static func encode<T: Encodable>(_ value: T, with encoder: PlistEncoder, url: URL) throws -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw FileStorageError.encodingFailed(url, "\(error)")
        }
    }
}
