import Foundation
import FileStorageKit
import PlistCodec
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file behind `PersistenceContext`: its document and how the document is laid out.
enum PersistenceFile {
    /// The document `fileName` in `storage`: a dictionary property list written in `format`, `nil`
    /// when there is no file; a corrupt file is moved aside (`<name>.corrupt-<timestamp>`) and
    /// reported to `onCorruptFile`.
    static func document(_ fileName: String, in storage: StorageFolder, format: PersistenceFormat,
                         onCorruptFile: (@Sendable (FileStorageError, URL?) -> Void)? = nil) -> PlistDocument<PlistDictionary?> {
        PlistDocument(fileName: fileName, in: storage, lockTimeout: timeout, corruptFilePolicy: .moveAside(label: "corrupt"),
                      onCorruptFile: onCorruptFile, coding: PlistDocument<PlistDictionary?>.Coding(
            empty: { nil },
            decode: { data in
                let value = try PlistValue(parsing: data)
                guard case .dictionary(let dictionary) = value else {
                    throw PlistError(.malformed, "the top-level object is a \(value.kindName), not a dict")
                }
                return dictionary
            },
            encode: { new, _ in try new.map { try serialize($0, as: format) } }))
    }

    /// The document `name` in the storage in effect here, for the static members that read it
    /// (`default`, `migrate()`, `shouldMigrate`): a corrupt file is moved aside and reported through
    /// `PersistenceErrors`, as an instance reports it.
    static func document(forModel name: String, format: PersistenceFormat) -> (document: PlistDocument<PlistDictionary?>, url: URL) {
        let url = PersistenceLocation.url(forDocument: name)
        let document = Self.document(PersistenceLocation.fileName(forDocument: name), in: PersistenceLocation.currentStorage,
                                     format: format) { error, movedTo in
            guard case .corrupt(_, let plistError) = error else { return }
            PersistenceErrors.report(PersistenceError(documentName: name, url: url, operation: PersistenceContextOperation.current,
                                                      cause: .corruptFile(plistError, movedTo: movedTo)))
        }
        return (document, url)
    }

    /// How long a model waits for another writer.
    static let timeout: Duration = FileLock.defaultTimeout

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
        try PlistValue.dictionary(document).serialized(as: format == .binary ? .binary : .xml)
    }
}

/// Which operation a corrupt file was found in, for its report.
enum PersistenceContextOperation {
    @TaskLocal static var current: PersistenceError.Operation = .load
}
