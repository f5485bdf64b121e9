import Foundation
import PlistCodec

/// Reads and writes Codable values as whole files, as WooCommerce's `FileStorage` does.
///
/// Implementations: `PlistFileStorage` (durable, locked files) and `InMemoryFileStorage` (for tests).
///
/// ```swift
/// let storage: any FileStorage = PlistFileStorage()
/// try storage.write(settings, to: url)
/// let loaded: Settings = try storage.data(for: url)
/// ```
///
/// `write` replaces the whole file. To change part of a file when other threads or processes may
/// write it too, use `update(at:default:_:)`: reading with `data(for:)` and then writing is never
/// atomic across processes, and one of two such writers loses its change.
public protocol FileStorage: Sendable {
    /// Reads and decodes the file at `fileURL`.
    ///
    /// - Throws: `FileStorageError`: `.notFound`, `.corrupt`, `.decodingFailed`, `.permissionDenied`, ...
    func data<T: Decodable>(for fileURL: URL) throws -> T

    /// Encodes `data` and replaces the file at `fileURL` with it, creating its folder when missing.
    func write<T: Encodable>(_ data: T, to fileURL: URL) throws

    /// Deletes the file at `fileURL`; a missing file is not an error.
    func deleteFile(at fileURL: URL) throws

    /// Reads the file (or starts from `initial` when it does not exist), lets `body` change the value,
    /// and writes the result, all under the file's exclusive lock: no other writer using this
    /// toolkit, in this process or another, can interleave.
    ///
    /// - Returns: The value written.
    @discardableResult
    func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                            _ body: (inout T) throws -> Void) throws -> T
}

/// A `FileStorage` that keeps files in memory, encoded exactly as `PlistFileStorage` would write them.
public final class InMemoryFileStorage: FileStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var files: [URL: Data] = [:]
    private let encoder: PlistEncoder

    /// Creates an empty storage that encodes in `format` (XML by default, like `PlistFileStorage`).
    public init(format: PlistFormat = .xml) {
        var encoder = PlistEncoder()
        encoder.outputFormat = format
        self.encoder = encoder
    }

    /// The stored bytes of `fileURL`, if any.
    public func contents(of fileURL: URL) -> Data? { lock.withLock { files[fileURL.standardizedFileURL] } }

    public func data<T: Decodable>(for fileURL: URL) throws -> T {
        guard let bytes = contents(of: fileURL) else { throw FileStorageError.notFound(fileURL) }
        return try PlistFileStorage.decode(T.self, from: bytes, url: fileURL)
    }

    public func write<T: Encodable>(_ data: T, to fileURL: URL) throws {
        let bytes = try PlistFileStorage.encode(data, with: encoder, url: fileURL)
        lock.withLock { files[fileURL.standardizedFileURL] = bytes }
    }

    public func deleteFile(at fileURL: URL) throws {
        _ = lock.withLock { files.removeValue(forKey: fileURL.standardizedFileURL) }
    }

    @discardableResult
    public func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                                   _ body: (inout T) throws -> Void) throws -> T {
        try lock.withLock {
            let key = fileURL.standardizedFileURL
            var value: T = try files[key].map { try PlistFileStorage.decode(T.self, from: $0, url: fileURL) } ?? initial()
            try body(&value)
            files[key] = try PlistFileStorage.encode(value, with: encoder, url: fileURL)
            return value
        }
    }
}
