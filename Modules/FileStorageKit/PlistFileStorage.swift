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
public struct PlistFileStorage: FileStorage, Sendable {
    /// The format new files are written in.
    public var format: PlistFormat
    /// How long to wait for another writer's lock.
    public var lockTimeout: Duration

    /// Creates a storage writing `format` files (XML by default).
    public init(format: PlistFormat = .xml, lockTimeout: Duration = FileLock.defaultTimeout) {
        self.format = format
        self.lockTimeout = lockTimeout
    }

    var encoder: PlistEncoder {
        var e = PlistEncoder()
        e.outputFormat = format
        return e
    }

    public func data<T: Decodable>(for fileURL: URL) throws -> T {
        try Self.decode(T.self, from: DurableFile.read(fileURL), url: fileURL)
    }

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
    public func deleteFile(at fileURL: URL) throws {
        // Without the file there is nothing to exclude anyone from; a write racing with this call
        // simply comes after it.
        guard DurableFile.entryExists(atPath: fileURL.path) else { return }
        try FileLock.withExclusiveLock(for: fileURL, timeout: lockTimeout) {
            try DurableFile.remove(fileURL)
        }
    }

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
