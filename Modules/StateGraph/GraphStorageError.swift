import FileStorageKit
import Foundation

/// A stored node could not write its value to its suite, or read what another writer put there.
///
/// A setter cannot throw, so these are not thrown: the node keeps its value in memory, remembers the
/// error (`Stored.storageError`), and reports it to `GraphStorageErrors.handler`.
///
/// ```swift
/// model.$theme.wrappedValue = "dark"
/// if let error = model.$theme.storageError, error.fileError != nil {
///     print("not saved: \(error)")   // the value is kept in memory meanwhile
/// }
/// ```
public struct GraphStorageError: Error, Sendable, CustomStringConvertible {
    /// What was being done.
    public enum Operation: String, Sendable {
        /// Turning the value into property-list values.
        case encode
        /// Turning the suite's value for the key into the node's type.
        case decode
        /// Writing the suite's file.
        case write
    }

    /// The suite's file.
    public let url: URL
    /// The key in the suite.
    public let key: String
    /// What failed.
    public let operation: Operation
    /// Why, as the underlying error describes it.
    public let reason: String
    /// The file system's error when the suite's file could not be written or read (`.diskFull`,
    /// `.permissionDenied`, `.lockTimeout`, ...), so a caller can tell a full disk from a read-only
    /// folder without parsing `reason`; `nil` for encoding and decoding failures.
    public let fileError: FileStorageError?

    init(url: URL, key: String, operation: Operation, reason: String, fileError: FileStorageError? = nil) {
        self.url = url
        self.key = key
        self.operation = operation
        self.reason = reason
        self.fileError = fileError
    }

    /// The file, the key, what failed and why, on one line.
    public var description: String {
        "\(url.path), key \(key): cannot \(operation.rawValue): \(reason)"
    }
}

/// Where stored nodes report the errors their setters cannot throw.
///
/// ```swift
/// GraphStorageErrors.handler = { error in logger.error("\(error)") }   // instead of standard error
/// ```
public enum GraphStorageErrors {
    /// The hub itself (FileStorageKit's `ErrorReports`, as every store's): also offers `stream()`.
    public static let reports = ErrorReports<GraphStorageError>(label: "StateGraph")

    /// Called with every storage error, on the thread that hit it. By default prints to standard error.
    public static var handler: @Sendable (GraphStorageError) -> Void {
        get { reports.handler ?? { reports.printLine($0) } }
        set { reports.handler = newValue }
    }

    static func report(_ error: GraphStorageError) {
        reports.report(error)
    }
}
