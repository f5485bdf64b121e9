import Foundation
import PlistCodec

/// Reads and writes Codable values as whole files, as WooCommerce's `FileStorage` does.
///
/// Implementations: `PlistFileStorage` (durable, locked files; also spelled `PListFileStorage`, as in
/// WooCommerce) and `InMemoryFileStorage` (for tests). An app's own type conforms by writing WooCommerce's
/// three methods: `data(for:)`, `write(_:to:)` and `deleteFile(at:)`.
///
/// ```swift
/// let storage: any FileStorage = PListFileStorage()
/// try storage.write(settings, to: url)
/// let loaded: Settings = try storage.data(for: url)
/// ```
///
/// `write` replaces the whole file. To change part of a file when other threads or processes may
/// write it too, use `update(at:default:_:)`: reading with `data(for:)` and then writing is never
/// atomic across processes, and one of two such writers loses its change. `PlistFileStorage`'s
/// `update` holds the file's lock; the default implementation a custom type gets does not (see there).
///
/// The protocol does not require `Sendable`: a conforming type is as thread-safe as it says it is
/// (`PlistFileStorage` and `InMemoryFileStorage` are `Sendable`).
public protocol FileStorage {
    /// Reads and decodes the file at `fileURL`.
    ///
    /// - Throws: `FileStorageError`: `.notFound`, `.corrupt`, `.decodingFailed`, `.permissionDenied`, ...
    func data<T: Decodable>(for fileURL: URL) throws -> T

    /// Encodes `data` and replaces the file at `fileURL` with it, creating its folder when missing.
    func write<T: Encodable>(_ data: T, to fileURL: URL) throws

    /// Deletes the file at `fileURL`; a missing file is not an error.
    func deleteFile(at fileURL: URL) throws

    /// Reads the file (or starts from `initial` when it does not exist), lets `body` change the value,
    /// and writes the result.
    ///
    /// `PlistFileStorage` and `InMemoryFileStorage` do all of it under the file's exclusive lock: no
    /// other writer using this toolkit, in this process or another, can interleave. A type that
    /// implements only the three required methods gets a default that reads with `data(for:)` and
    /// writes with `write(_:to:)`, which is only as atomic as those two calls together.
    ///
    /// - Returns: The value written.
    @discardableResult
    func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                            _ body: (inout T) throws -> Void) throws -> T
}

extension FileStorage {
    /// Reads with `data(for:)` (starting from `initial` when the file is `.notFound`), applies `body`
    /// and writes with `write(_:to:)`: a default for types that implement only WooCommerce's three
    /// methods. It takes no lock; `PlistFileStorage` replaces it with a locked read-modify-write.
    @discardableResult
    public func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                                   _ body: (inout T) throws -> Void) throws -> T {
        var value: T
        do {
            value = try data(for: fileURL)
        } catch {
            // A custom type may report a missing file with its own error (`CocoaError`, say).
            let missing = fileURL.isFileURL && !FileManager.default.fileExists(atPath: fileURL.path)
            guard missing || error.isFileStorageNotFound else { throw error }
            value = initial()
        }
        try body(&value)
        try write(value, to: fileURL)
        return value
    }
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

extension Error {
    /// Whether this is `FileStorageError.notFound`.
    fileprivate var isFileStorageNotFound: Bool {
        if let error = self as? FileStorageError, case .notFound = error { return true }
        return false
    }
}
