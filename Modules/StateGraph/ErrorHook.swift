import Foundation
import Synchronization

/// A process-wide, replaceable handler for errors an API reports because it cannot throw them (a
/// setter, a getter). By default it prints `StateGraph: <error>` on standard error.
final class ErrorHook<Failure: Error>: Sendable {
    private let current = Mutex<@Sendable (Failure) -> Void>({ error in
        FileHandle.standardError.write(Data("StateGraph: \(error)\n".utf8))
    })

    /// The handler in effect.
    var handler: @Sendable (Failure) -> Void {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Hands `error` to the handler, on the calling thread.
    func report(_ error: Failure) {
        handler(error)
    }
}
