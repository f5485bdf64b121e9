import Foundation
import FileStorageKit
import PlistCodec
import Synchronization

/// A failure reading or writing a persisted model's file: which document, which file, what was being
/// done, and why.
///
/// Getters and setters cannot throw, so these are not thrown from them: they are reported through
/// `PersistenceErrors` (a stream and a handler) and kept in the model's `persistenceError`. The
/// model always keeps its in-memory values; nothing crashes.
///
/// ```swift
/// PersistenceErrors.handler = { error in
///     switch (error.operation, error.cause) {
///     case (.load, .corruptFile(_, let movedTo)):
///         print("\(error.documentName) was damaged; kept at \(movedTo?.path ?? "nowhere")")
///     case (_, .file(.diskFull)):
///         print("no room to save \(error.documentName)")
///     default:
///         print(error)        // "Settings (/…/Settings.storage.plist): save failed: …"
///     }
/// }
/// ```
public struct PersistenceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done.
    ///
    /// ```swift
    /// if settings.persistenceError?.operation == .save { try settings.flush() }   // retry the write
    /// ```
    public enum Operation: String, Sendable {
        /// Reading the file (first use, or a reload after another writer changed it).
        case load
        /// Writing a change (a set, a batch's end, `update`, `flush`).
        case save
        /// Removing the file (`delete()`).
        case delete
    }

    /// Why it failed.
    ///
    /// ```swift
    /// if case .undecodableValue(let key, let message)? = settings.persistenceError?.cause {
    ///     print("\(key) kept its value: \(message)")
    /// }
    /// ```
    public enum Cause: Equatable, Sendable {
        /// The file was not a valid property list, or its top level was not a dictionary. It was
        /// renamed to `movedTo` (`nil` if even that failed) and never overwritten; the next write
        /// starts a fresh file from the model's values.
        case corruptFile(PlistError, movedTo: URL?)
        /// A file operation failed: permission, disk full, lock timeout, I/O.
        case file(FileStorageError)
        /// The value under `key` does not decode as the property's type; the property kept its value.
        case undecodableValue(key: String, message: String)
        /// The value could not be encoded (for `key`, or the whole file when `nil`); it was not written.
        case unencodableValue(key: String?, message: String)
    }

    /// The model's document name (`<name>.storage.plist`).
    public let documentName: String
    /// The file.
    public let url: URL
    /// What was being done.
    public let operation: Operation
    /// Why it failed.
    public let cause: Cause

    /// Describes a failure.
    public init(documentName: String, url: URL, operation: Operation, cause: Cause) {
        self.documentName = documentName
        self.url = url
        self.operation = operation
        self.cause = cause
    }

    public var description: String {
        let reason: String
        switch cause {
        case .corruptFile(let error, let movedTo):
            reason = "not a valid property list (\(error)); "
                + (movedTo.map { "moved aside to \($0.lastPathComponent)" } ?? "could not be moved aside")
        case .file(let error): reason = error.description
        case .undecodableValue(let key, let message): reason = "value for \"\(key)\" does not decode: \(message)"
        case .unencodableValue(let key, let message):
            reason = "cannot encode \(key.map { "\"\($0)\"" } ?? "the document"): \(message)"
        }
        return "\(documentName) (\(url.path)): \(operation.rawValue) failed: \(reason)"
    }
}

/// Where persisted models report their errors: a handler, and streams any number of observers read.
///
/// ```swift
/// PersistenceErrors.handler = { error in log.error("\(error)") }
/// Task { for await error in PersistenceErrors.stream() { showAlert(error) } }
/// ```
///
/// Every error goes to the handler (if set) and to every open stream. When there is neither, it is
/// printed to standard error, so no failure goes unnoticed.
public enum PersistenceErrors {
    /// The hub itself (FileStorageKit's `ErrorReports`, as every store's).
    public static let reports = ErrorReports<PersistenceError>(label: "ModelPersistence")

    /// Called with every error, on the thread that hit it. Keep it short; it must not block.
    public static var handler: (@Sendable (PersistenceError) -> Void)? {
        get { reports.handler }
        set { reports.handler = newValue }
    }

    /// A stream of every error reported from now until the stream is dropped (the newest 256 are buffered).
    public static func stream() -> AsyncStream<PersistenceError> { reports.stream() }

    /// Sends `error` to the handler and the streams (called without any persistence lock held).
    static func report(_ error: PersistenceError) { reports.report(error) }
}
