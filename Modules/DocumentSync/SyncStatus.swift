import Foundation

/// What a continuous replicator is doing, as ``DocumentSync/start()`` reports it.
///
/// ```swift
/// for await status in sync.start() {
///     switch status {
///     case .idle(let report): print("up to date: \(report)")
///     case .offline(let retryIn, let reason): print("offline (\(reason)), retrying in \(retryIn)")
///     case .error(let error, _): print("failed: \(error)")
///     default: break
///     }
/// }
/// ```
///
/// A synchronization goes ``connecting`` (only when there is no connection), ``pushing``,
/// ``pulling``, then ``idle(_:)``; a failure is ``offline(retryIn:reason:)`` or
/// ``error(_:retryIn:)``, and the stream ends with ``stopped``.
public enum SyncStatus: Sendable, Equatable, CustomStringConvertible {
    /// Opening a connection to the server.
    case connecting
    /// Sending local changes.
    case pushing
    /// Receiving the server's changes.
    case pulling
    /// Up to date as of the report's synchronization; waiting for changes.
    case idle(DocumentSync.Report)
    /// The server cannot be reached; the next attempt is after `retryIn`.
    case offline(retryIn: Duration, reason: String)
    /// A synchronization failed for a reason waiting alone may not fix; it is tried again after `retryIn`.
    case error(DocumentSyncError, retryIn: Duration)
    /// ``DocumentSync/stop()`` was called (the stream ends after this).
    case stopped

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .pushing: "pushing"
        case .pulling: "pulling"
        case .idle(let report): "idle (\(report))"
        case .offline(let retry, let reason): "offline, retrying in \(retry): \(reason)"
        case .error(let error, let retry): "error, retrying in \(retry): \(error)"
        case .stopped: "stopped"
        }
    }
}
