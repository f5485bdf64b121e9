/// The values of `apply`, now and after every change of what it read, as an async sequence: the
/// first is computed before this returns (it is waiting in the stream), later ones in a task on
/// `isolation` (the caller's by default), coalesced as a tracking group's runs are
/// (``withGraphTrackingGroup(_:isolation:)``). Every run yields, equal values included. The stream
/// buffers every value until it is read; it stops tracking when the consumer stops or lets it go.
///
/// ```swift
/// for await name in withStateGraphTrackingStream(apply: { "\(model.first) \(model.last)" }) {
///     print(name)
/// }
/// ```
public func withStateGraphTrackingStream<T>(apply: @escaping () -> T, isolation: isolated (any Actor)? = #isolation) -> AsyncStream<T> {
    let (stream, continuation) = AsyncStream<T>.makeStream()
    let scope = TrackingScope(body: { continuation.yield(apply()) })
    scope.deliver(on: isolation)
    scope.run()
    continuation.onTermination = { _ in scope.cancel() }
    return stream
}

extension Node {
    /// The value now and after every change, as an async sequence (swift-state-graph's `observe()`):
    /// the first value is waiting before this returns; later ones come from a task (changes before
    /// it runs are coalesced). See ``withStateGraphTrackingStream(apply:isolation:)``; `values()`
    /// is this module's form, delivered on the writing thread.
    public func observe() -> AsyncStream<Value> {
        withStateGraphTrackingStream(apply: { self.wrappedValue }, isolation: nil)
    }
}
