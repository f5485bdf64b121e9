/// Opens a tracking scope: the groups and maps made inside `scope` keep reacting to the nodes they
/// read until the returned token is cancelled or released, which ends every one of them, however
/// deeply nested, and lets go of their closures at once.
///
/// `scope` runs once, now; its own reads are not tracked. swift-state-graph's spelling, for the API
/// most apps observe with:
///
/// ```swift
/// let cancellable = withGraphTracking {
///     withGraphTrackingMap { model.count } onChange: { count in
///         label.text = "\(count)"
///     }
///     withGraphTrackingGroup {
///         if model.isEditing { print("editing", model.draft) }
///     }
/// }
/// ```
///
/// For a one-shot observation (Observation's style) see ``withGraphObservationTracking(_:onChange:)``.
public func withGraphTracking(_ scope: () -> Void) -> AnyCancellable {
    let root = TrackingScope()
    TrackingScope.$current.withValue(root) { scope() }
    return AnyCancellable { root.cancel() }
}

/// Runs `handler` now and again after every change of what its last run read, inside a
/// ``withGraphTracking(_:)`` scope (or another group or map).
///
/// - The first run happens before this returns, on the caller's thread. Later runs happen in a task
///   on `isolation`, the caller's by default: set up on the main actor, the handler runs on the main
///   actor, whichever thread wrote the node.
/// - Changes before that task starts are coalesced into one run, which sees all of them.
/// - Dependencies are the nodes the last run read (a node read only in some runs is tracked only
///   after them). A run that writes a node it read is not run again for that write.
/// - Groups and maps made inside the handler are its children: each run cancels the previous run's
///   children and makes them again.
///
/// Outside any tracking scope it does nothing (swift-state-graph asserts in debug builds).
///
/// ```swift
/// withGraphTrackingGroup {
///     if model.showsDetails { detailView.update(model.details) }
/// }
/// ```
public func withGraphTrackingGroup(_ handler: @escaping () -> Void, isolation: isolated (any Actor)? = #isolation) {
    TrackingScope.start(handler, isolation: isolation)
}

/// Keeps calling `onChange` with `applier`'s result, now and after every change of what it read, when
/// the result differs from the last one passed on (`DistinctFilter`). Otherwise as
/// ``withGraphTrackingGroup(_:isolation:)``: `onChange` first runs before this returns, with the
/// current value.
///
/// ```swift
/// withGraphTrackingMap { "\(model.firstName) \(model.lastName)" } onChange: { name in
///     nameLabel.text = name
/// }
/// ```
public func withGraphTrackingMap<Projection: Equatable>(
    _ applier: @escaping () -> Projection,
    onChange: @escaping (Projection) -> Void,
    isolation: isolated (any Actor)? = #isolation
) {
    withGraphTrackingMap(applier, filter: DistinctFilter(), onChange: onChange, isolation: isolation)
}

/// Keeps calling `onChange` with `applier`'s result, now and after every change of what it read, when
/// `filter` lets it pass (the filter keeps its state from run to run of this map).
public func withGraphTrackingMap<Projection>(
    _ applier: @escaping () -> Projection,
    filter: consuming some Filter<Projection>,
    onChange: @escaping (Projection) -> Void,
    isolation: isolated (any Actor)? = #isolation
) {
    let box = FilterBox(filter)
    TrackingScope.start({
        if let value = box.filter.send(value: applier()) { onChange(value) }
    }, isolation: isolation)
}

/// `withGraphTrackingMap` over a model held weakly: `map` gets the model on each run, and the
/// tracking ends by itself once the model is gone (it never keeps the model alive).
///
/// ```swift
/// withGraphTrackingMap(from: viewModel, map: { $0.title }) { title in
///     titleLabel.text = title
/// }
/// ```
public func withGraphTrackingMap<Dependency: AnyObject, Projection: Equatable>(
    from dependency: Dependency,
    map: @escaping (Dependency) -> Projection,
    onChange: @escaping (Projection) -> Void,
    isolation: isolated (any Actor)? = #isolation
) {
    withGraphTrackingMap(from: dependency, map: map, filter: DistinctFilter(), onChange: onChange, isolation: isolation)
}

/// `withGraphTrackingMap` over a model held weakly, with a filter of its own.
public func withGraphTrackingMap<Dependency: AnyObject, Projection>(
    from dependency: Dependency,
    map: @escaping (Dependency) -> Projection,
    filter: consuming some Filter<Projection>,
    onChange: @escaping (Projection) -> Void,
    isolation: isolated (any Actor)? = #isolation
) {
    let box = FilterBox(filter)
    TrackingScope.start({ [weak dependency] in
        guard let dependency else {
            // The model is gone: so is everything this map could read. Stop, and let go of the closures.
            TrackingScope.current?.cancel()
            return
        }
        if let value = box.filter.send(value: map(dependency)) { onChange(value) }
    }, isolation: isolation)
}

/// A map's filter, kept from run to run.
private final class FilterBox<F: Filter> {
    var filter: F
    init(_ filter: consuming F) { self.filter = filter }
}

extension TrackingScope {
    /// Makes a group's or map's scope under the current one, runs it once, and attaches it.
    fileprivate static func start(_ body: @escaping () -> Void, isolation: isolated (any Actor)?) {
        guard let parent = TrackingScope.current else { return }
        let scope = TrackingScope(body: body)
        scope.deliver(on: isolation)
        scope.run()
        parent.addChild(scope)
    }
}
