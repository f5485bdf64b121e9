import Foundation
import FileStorageKit
import PlistCodec

/// A persisted model whose file may still hold values under the keys of an earlier version: DocumentData's
/// `Migratable`. `@PersistedModel` adopts it when the class declares a `@Migration` enum of old keys:
///
/// ```swift
/// @PersistedModel
/// final class Profile {
///     var name: String = ""
///     var age: Int = 0
///
///     @ModelCodingKey
///     enum CodingKeys: String, CodingKey {
///         case name = "NAME"
///         case age = "AGE"
///     }
///
///     @Migration
///     enum OldKeys: String, CodingKey {   // the keys version 1 wrote
///         case name = "n"
///         case age = "a"
///     }
/// }
///
/// if Profile.shouldMigrate { Profile.migrate() }   // rewrites "n" and "a" as "NAME" and "AGE"
/// ```
///
/// A model reads its old keys whether or not it was migrated (each `@Migration` case is an earlier key
/// of its property, as with `@PreviousKeys`), and a set stores the property under its current key.
/// `migrate()` rewrites the whole file at once, so another program, or an older version of the app
/// that reads the new keys, sees them all.
public protocol Migratable: AnyObject {
    /// Rewrites the file so every value is under its current key: values found only under an old key
    /// move to the current one, and old keys are removed. Durable and atomic, under the file's lock;
    /// nothing is written when nothing is under an old key. A failure is reported through
    /// `PersistenceErrors` (use `migrateFile()` to have it thrown).
    static func migrate()

    /// Whether the file holds any value under an old key (so `migrate()` would rewrite it). `false`
    /// when there is no file, or it cannot be read (the error is reported through `PersistenceErrors`).
    static var shouldMigrate: Bool { get }
}

extension Migratable where Self: PersistedModel {
    public static func migrate() {
        do {
            try migrateFile()
        } catch {
            PersistenceErrors.report(error)
        }
    }

    public static var shouldMigrate: Bool {
        let document = PersistenceFile.document(forModel: _$persistedDocumentName, format: persistenceFormat).document
        do {
            guard let file = try document.read() else { return false }
            return ModelMigration.oldKeys(in: file, fields: _$persistedFields).isEmpty == false
        } catch {
            PersistenceErrors.report(PersistenceError(documentName: _$persistedDocumentName, url: document.url,
                                                      operation: .load, cause: .file(error)))
            return false
        }
    }

    /// What `migrate()` does, throwing its error. Returns whether the file was rewritten.
    ///
    /// - Throws: `PersistenceError` (operation `.save`) when the file could not be read, locked or written.
    @discardableResult
    public static func migrateFile() throws(PersistenceError) -> Bool {
        let document = PersistenceFile.document(forModel: _$persistedDocumentName, format: persistenceFormat).document
        let fields = _$persistedFields
        do {
            return try PersistenceContextOperation.$current.withValue(.save) {
                try document.update { file -> Bool in
                    guard let current = file else { return false }
                    let migrated = ModelMigration.migrated(current, fields: fields)
                    guard migrated != current else { return false }
                    file = migrated
                    return true
                }
            }
        } catch let error as FileStorageError {
            throw PersistenceError(documentName: _$persistedDocumentName, url: document.url, operation: .save, cause: .file(error))
        } catch {
            throw PersistenceError(documentName: _$persistedDocumentName, url: document.url, operation: .save,
                                   cause: .unencodableValue(key: nil, message: "\(error)"))
        }
    }
}

/// How a file's old keys become current ones (for `Migratable`).
enum ModelMigration {
    /// The keys in `file` that are an earlier key of some field and no field's current key.
    static func oldKeys<Model>(in file: PlistDictionary, fields: [PersistedField<Model>]) -> [String] {
        let current = Set(fields.map(\.key))
        var found: [String] = []
        for field in fields {
            for old in field.previousKeys where !current.contains(old) && file[old] != nil && !found.contains(old) {
                found.append(old)
            }
        }
        return found
    }

    /// `file` with every value found only under an old key moved to its field's current key, the old
    /// keys removed, laid out as the model writes it.
    static func migrated<Model>(_ file: PlistDictionary, fields: [PersistedField<Model>]) -> PlistDictionary {
        var result = file
        for field in fields where result[field.key] == nil {
            if let old = field.previousKeys.first(where: { file[$0] != nil }) { result[field.key] = file[old] }
        }
        for old in oldKeys(in: file, fields: fields) { result.removeValue(forKey: old) }
        return PersistenceFile.laidOut(result, fields: fields)
    }
}
