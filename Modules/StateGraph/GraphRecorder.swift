#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects the nodes one evaluation reads, and links each to the reader as it is read.
///
/// One recorder is current per thread (a computed node's rule, or a tracking closure, runs
/// synchronously on the thread that asked for it). A node read while a recorder is current calls
/// `record(_:)`; the recorder compares the read with the previous evaluation's reads at the same
/// position, so an evaluation that reads what it read last time adds no edges and allocates only its
/// list of reads.
@usableFromInline
final class GraphRecorder {
    /// Who is reading: a computed node or an observer. Unowned: a recorder lives inside its owner
    /// (a computed node keeps one for all its evaluations, and sets this right after it is made) or
    /// only for one call.
    @usableFromInline unowned(unsafe) var owner: (any GraphDependent)?
    /// Whether `owner` is a computed node (reads inside it are not reported to Observation: the
    /// computed node itself is, and it is invalidated whenever one of its reads is).
    @usableFromInline let isEvaluation: Bool
    /// The reads of the previous evaluation, whose edges exist.
    @usableFromInline @exclusivity(unchecked) var previous: [any GraphDependency]
    /// The reads of this evaluation, in order.
    @usableFromInline @exclusivity(unchecked) var reads: [any GraphDependency] = []
    /// Whether a read of this evaluation differed from the previous one's at its position; if not
    /// (and none is missing), no edge can have been dropped, and `droppedDependencies` is not needed.
    @usableFromInline @exclusivity(unchecked) var diverged = false

    @usableFromInline
    init(owner: (any GraphDependent)?, isEvaluation: Bool, previous: [any GraphDependency]) {
        self.owner = owner
        self.isEvaluation = isEvaluation
        self.previous = previous
        reads.reserveCapacity(previous.count)
    }

    /// Starts another evaluation: this one's reads become the previous ones (their edges exist).
    @usableFromInline
    func restart() {
        // Reuse the older buffer for this evaluation's reads: swapped, so each buffer stays uniquely
        // referenced and `removeAll` and `append` do not reallocate.
        swap(&previous, &reads)
        if !reads.isEmpty { reads.removeAll(keepingCapacity: true) }
        diverged = false
    }

    /// Whether `droppedDependencies()` may find anything.
    @inlinable
    var mayHaveDropped: Bool { diverged || reads.count < previous.count }

    /// Notes that `node` was read; returns whether `node` must add `owner` to its dependents (it was
    /// not read at this position last time, so the edge may not exist).
    @inlinable
    func record(_ node: any GraphDependency) -> Bool {
        let index = reads.count
        reads.append(node)
        if index < previous.count && previous[index] === node { return false }
        diverged = true
        return true
    }

    /// The previous reads that this evaluation did not read again: their edges must go.
    @usableFromInline
    func droppedDependencies() -> [any GraphDependency] {
        if previous.isEmpty { return [] }
        if previous.count == reads.count {
            var same = true
            for index in previous.indices where previous[index] !== reads[index] {
                same = false
                break
            }
            if same { return [] }
        }
        let kept = Set(reads.map { ObjectIdentifier($0) })
        var seen = Set<ObjectIdentifier>()
        return previous.filter { !kept.contains(ObjectIdentifier($0)) && seen.insert(ObjectIdentifier($0)).inserted }
    }

    // MARK: The current recorder of this thread

    @usableFromInline static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The recorder of the evaluation running on this thread, if any.
    @inlinable
    static var current: GraphRecorder? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<GraphRecorder>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs `body` with `recorder` current on this thread (`nil` reads without recording).
    @inlinable
    static func with<T>(_ recorder: GraphRecorder?, _ body: () throws -> T) rethrows -> T {
        let saved = pthread_getspecific(key)
        let raw = recorder.map { Unmanaged.passUnretained($0).toOpaque() }
        pthread_setspecific(key, raw)
        defer { pthread_setspecific(key, saved) }
        return try withExtendedLifetime(recorder) { try body() }
    }
}
