#if canImport(Combine)
// On Apple platforms the tracking scopes return Combine's own type, as swift-state-graph does, so a
// program that imports Combine too sees one `AnyCancellable`, not two.
@_exported import class Combine.AnyCancellable
@_exported import protocol Combine.Cancellable
#else
import Synchronization

/// Something that can be cancelled: Combine's protocol, for platforms without Combine.
public protocol Cancellable {
    /// Stops the work. Calling it again does nothing.
    func cancel()
}

/// A cancellation token that cancels when it is released: Combine's `AnyCancellable`, for platforms
/// without Combine (Linux). `withGraphTracking { }` returns one.
///
/// ```swift
/// var cancellables = Set<AnyCancellable>()
/// withGraphTracking {
///     withGraphTrackingMap { model.count } onChange: { print("count:", $0) }
/// }
/// .store(in: &cancellables)
/// ```
public final class AnyCancellable: Cancellable, Hashable, Sendable {
    private let action = Mutex<(@Sendable () -> Void)?>(nil)

    /// A token that calls `cancel` once, when cancelled or released.
    public init(_ cancel: @escaping @Sendable () -> Void) {
        action.withLock { $0 = cancel }
    }

    /// A token that cancels `canceller` when cancelled or released.
    public init<C: Cancellable & Sendable>(_ canceller: C) {
        action.withLock { $0 = { canceller.cancel() } }
    }

    deinit { cancel() }

    /// Runs the cancellation once, then lets go of it (and of everything it holds).
    public func cancel() {
        let run = action.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        run?()
    }

    /// Keeps this token in `set` (it is cancelled when the set lets it go).
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }

    /// Keeps this token in `collection`.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
#endif
