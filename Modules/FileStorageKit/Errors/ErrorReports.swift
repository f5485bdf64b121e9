import Foundation
import Synchronization

/// Where a store reports the errors its non-throwing API cannot throw (a property setter, a getter
/// that found a corrupt file): a handler, and streams any number of observers read. The stores'
/// hubs (`PersistenceErrors`, `GraphStorageErrors`, `GraphCycleErrors`) are each one of these.
///
/// Every error goes to the handler (if set) and to every open stream. When there is neither, it is
/// printed to standard error as one line, `<label>: <error>`, so no failure goes unnoticed.
///
/// ```swift
/// let reports = ErrorReports<MyError>(label: "MyStore")
/// reports.handler = { error in log.error("\(error)") }
/// Task { for await error in reports.stream() { showAlert(error) } }
/// ```
public final class ErrorReports<Failure: Error & Sendable>: Sendable {
    private struct Registry: Sendable {
        var handler: (@Sendable (Failure) -> Void)?
        var streams: [UInt64: AsyncStream<Failure>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    /// The prefix of the standard-error line (the store's name).
    public let label: String
    private let registry = Mutex(Registry())

    /// Creates a hub whose unobserved errors are printed as `<label>: <error>`.
    public init(label: String) {
        self.label = label
    }

    /// Called with every error, on the thread that hit it. Keep it short; it must not block.
    public var handler: (@Sendable (Failure) -> Void)? {
        get { registry.withLock { $0.handler } }
        set { registry.withLock { $0.handler = newValue } }
    }

    /// A stream of every error reported from now until the stream is dropped (the newest 256 are buffered).
    public func stream() -> AsyncStream<Failure> {
        let (stream, continuation) = AsyncStream<Failure>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            r.streams[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in _ = self?.registry.withLock { $0.streams.removeValue(forKey: id) } }
        return stream
    }

    /// Sends `error` to the handler and the streams, or to standard error when nobody listens.
    /// Call it without holding any store lock: the handler may use the store.
    public func report(_ error: Failure) {
        let (handler, streams) = registry.withLock { ($0.handler, Array($0.streams.values)) }
        handler?(error)
        for continuation in streams { continuation.yield(error) }
        if handler == nil && streams.isEmpty { printLine(error) }
    }

    /// Prints `error` to standard error as `<label>: <error>`.
    public func printLine(_ error: Failure) {
        FileHandle.standardError.write(Data("\(label): \(error)\n".utf8))
    }
}
