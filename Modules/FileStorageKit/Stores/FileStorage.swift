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
    ///
    /// - Throws: `FileStorageError`: `.encodingFailed`, or what the write hit (`.permissionDenied`,
    ///   `.diskFull`, `.lockTimeout`, ...); the file keeps its previous contents.
    func write<T: Encodable>(_ data: T, to fileURL: URL) throws

    /// Deletes the file at `fileURL`; a missing file is not an error.
    ///
    /// - Throws: `FileStorageError`: `.permissionDenied`, `.lockTimeout`, `.io`.
    func deleteFile(at fileURL: URL) throws

    /// Reads the file (or starts from `initial` when it does not exist), lets `body` change the value,
    /// and writes the result.
    ///
    /// `PlistFileStorage` and `InMemoryFileStorage` do all of it under the file's exclusive lock: no
    /// other writer using this toolkit, in this process or another, can interleave. A type that
    /// implements only the three required methods gets a default that reads with `data(for:)` and
    /// writes with `write(_:to:)`, which is only as atomic as those two calls together.
    ///
    /// ```swift
    /// let settings = try storage.update(at: url, default: Settings(name: "Ada", launches: 0)) {
    ///     $0.launches += 1
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - fileURL: The file.
    ///   - initial: The value to start from when there is no file.
    ///   - body: Changes the value.
    /// - Returns: The value written.
    /// - Throws: What `body` threw, or a `FileStorageError` (`.corrupt` and `.decodingFailed` for a file
    ///   that is there but does not decode, which is never replaced by `initial`; `.encodingFailed`;
    ///   `.lockTimeout`; the write's); nothing is written.
    @discardableResult
    func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                            _ body: (inout T) throws -> Void) throws -> T
}

extension FileStorage {
    /// Reads with `data(for:)`, applies `body` and writes with `write(_:to:)`: a default for types
    /// that implement only WooCommerce's three methods. It takes no lock; `PlistFileStorage`
    /// replaces it with a locked read-modify-write.
    ///
    /// It starts from `initial` only when `data(for:)` failed because there is no file: the error
    /// is `FileStorageError.notFound`, a "no such file" `CocoaError` or `POSIXError`, or another
    /// type's own error while no file exists at `fileURL`. A `DecodingError` (the bytes are there
    /// but do not decode) or any other `FileStorageError` is rethrown, so bad bytes are never
    /// replaced by the default.
    ///
    /// - Parameters:
    ///   - fileURL: The file.
    ///   - initial: The value to start from when there is no file.
    ///   - body: Changes the value.
    /// - Returns: The value written.
    /// - Throws: What `body`, `data(for:)` (but for a missing file) or `write(_:to:)` threw; nothing is
    ///   written when `body` or `data(for:)` threw.
    @discardableResult
    public func update<T: Codable>(at fileURL: URL, default initial: @autoclosure () -> T,
                                   _ body: (inout T) throws -> Void) throws -> T {
        var value: T
        do {
            value = try data(for: fileURL)
        } catch {
            guard error.meansMissingFile(at: fileURL) else { throw error }
            value = initial()
        }
        try body(&value)
        try write(value, to: fileURL)
        return value
    }
}

/// A `FileStorage` that keeps files in memory, encoded exactly as `PlistFileStorage` would write them.
///
/// For tests of code written against ``FileStorage``: nothing touches the disk, and the stored bytes
/// can be compared with a fixture.
///
/// ```swift
/// let storage = InMemoryFileStorage()
/// try storage.write(Settings(name: "Ada", launches: 1), to: url)
/// let loaded: Settings = try storage.data(for: url)
/// let xml = storage.contents(of: url)       // the bytes PlistFileStorage would have written
/// ```
// @unchecked Sendable: `files` is only touched under `lock`; `encoder` is a constant, never mutated after `init`
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

    /// Decodes the stored bytes of `fileURL`.
    ///
    /// - Throws: `FileStorageError`: `.notFound` when nothing is stored there, `.corrupt` or
    ///   `.decodingFailed` when the bytes do not decode as `T`.
    public func data<T: Decodable>(for fileURL: URL) throws -> T {
        guard let bytes = contents(of: fileURL) else { throw FileStorageError.notFound(fileURL) }
        return try PlistFileStorage.decode(T.self, from: bytes, url: fileURL)
    }

    /// Encodes `data` and stores the bytes for `fileURL`, replacing what was there.
    ///
    /// - Throws: `FileStorageError.encodingFailed`; nothing is stored.
    public func write<T: Encodable>(_ data: T, to fileURL: URL) throws {
        let bytes = try PlistFileStorage.encode(data, with: encoder, url: fileURL)
        lock.withLock { files[fileURL.standardizedFileURL] = bytes }
    }

    /// Forgets the bytes of `fileURL`; nothing stored there is not an error.
    ///
    /// - Throws: Nothing: the signature is the protocol's.
    public func deleteFile(at fileURL: URL) throws {
        _ = lock.withLock { files.removeValue(forKey: fileURL.standardizedFileURL) }
    }

    /// Decodes the stored value (or starts from `initial` when nothing is stored), lets `body` change
    /// it and stores it again, all under the storage's lock.
    ///
    /// - Parameters:
    ///   - fileURL: The file.
    ///   - initial: The value to start from when nothing is stored.
    ///   - body: Changes the value.
    /// - Returns: The value stored.
    /// - Throws: What `body` threw, or `FileStorageError` `.corrupt`, `.decodingFailed` or
    ///   `.encodingFailed`; nothing is stored.
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
    /// Whether `data(for:)` failing with this error means there is no file at `url` yet, so the
    /// default `update` may start from its default value.
    ///
    /// A decoding error, or any `FileStorageError` but `.notFound`, means bytes were there: starting
    /// from the default would overwrite them. Other errors count as "missing" when they say so
    /// (`CocoaError`, `POSIXError`) or when no file is at `url`: a custom type may wrap every
    /// failure in its own error, as WooCommerce's `PListFileStorage` does (`fileReadFailed`).
    fileprivate func meansMissingFile(at url: URL) -> Bool {
        if self is DecodingError { return false }
        if let error = self as? FileStorageError {
            if case .notFound = error { return true }
            return false
        }
        if let error = self as? CocoaError, error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile { return true }
        if let error = self as? POSIXError, error.code == .ENOENT { return true }
        return url.isFileURL && !FileManager.default.fileExists(atPath: url.path)
    }
}
