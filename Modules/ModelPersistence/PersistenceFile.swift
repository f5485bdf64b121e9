import Foundation
import FileStorageKit
import PlistCodec
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations behind `PersistenceContext`: reading the document, laying it out, moving a
/// corrupt file aside, and taking FileStorageKit's lock without deadlocking on ourselves.
enum PersistenceFile {
    /// What reading the file found.
    enum Read {
        /// No file.
        case missing
        /// A dictionary, and the bytes it came from.
        case document(PlistDictionary, Data)
        /// Bytes that are not a dictionary property list.
        case corrupt(Data, PlistError)
        /// The file could not be read.
        case failed(FileStorageError)
    }

    /// Reads and parses the file (without the lock: every write replaces it by a rename, so a read
    /// sees one whole version).
    static func read(_ url: URL) -> Read {
        let data: Data?
        do {
            data = try DurableFile.readIfPresent(url)
        } catch {
            return .failed(error)
        }
        guard let data else { return .missing }
        do {
            let value = try PlistValue(parsing: data)
            guard case .dictionary(let dictionary) = value else {
                return .corrupt(data, PlistError(.malformed, "the top-level object is a \(value.kindName), not a dict"))
            }
            return .document(dictionary, data)
        } catch let error as PlistError {
            return .corrupt(data, error)
        } catch {
            return .corrupt(data, PlistError(.malformed, "\(error)"))
        }
    }

    /// The document as a Codable struct with the same fields would encode it: the fields present, in
    /// declaration order, then every other key in its existing order (unknown keys are kept).
    static func laidOut<Model>(_ document: PlistDictionary, fields: [PersistedField<Model>]) -> PlistDictionary {
        var result = PlistDictionary()
        for field in fields { if let value = document[field.key] { result[field.key] = value } }
        for (key, value) in document where result[key] == nil { result[key] = value }
        return result
    }

    /// Serializes a document in `format`.
    static func serialize(_ document: PlistDictionary, as format: PersistenceFormat) throws -> Data {
        try PlistValue.dictionary(document).serialized(as: format == .xml ? .xml : .binary)
    }

    /// Renames the file to `<name>.corrupt-<UTC timestamp>` if it still holds `bytes`; the caller holds
    /// the lock. Returns the new URL, or `nil` when the file changed meanwhile (nothing to move).
    static func moveAside(_ url: URL, ifStillHolding bytes: Data) throws(FileStorageError) -> URL? {
        guard let current = try DurableFile.readIfPresent(url), current == bytes else { return nil }
        return try DurableFile.moveAside(url)
    }
}

/// FileStorageKit's exclusive lock, re-entrant within one thread or task.
///
/// `FileLock` is not re-entrant: taking it twice waits until the deadline. A model's code can reach
/// the lock again while holding it (a getter inside `update` that meets a corrupt file, or a second
/// instance of the same model used inside the body), so the paths held are bound in a task-local
/// value and a nested request for one of them runs its body directly.
enum ReentrantFileLock {
    @TaskLocal static var held: Set<String> = []

    /// How long a model waits for another writer.
    static let timeout: Duration = FileLock.defaultTimeout

    /// Runs `body` holding the lock for `url`.
    static func withLock<R>(for url: URL, _ body: () throws -> R) throws -> R {
        let path = url.standardizedFileURL.path
        if held.contains(path) { return try body() }
        return try FileLock.withExclusiveLock(for: url, timeout: timeout) {
            try $held.withValue(held.union([path])) { try body() }
        }
    }
}
