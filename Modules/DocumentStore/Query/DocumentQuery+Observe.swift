import Foundation
import GRDB

extension DocumentQuery {
    /// The query's results now, and again each time a commit (from this process or another) changes
    /// them: which documents match, in which order, at which revisions. Commits that leave the results
    /// as they were emit nothing.
    ///
    /// ```swift
    /// for try await circles in persistence.query(Circle.self).where(Field("radius") > 1).observe() {
    ///     print(circles.map(\.identifier))
    /// }
    /// ```
    ///
    /// The stream ends with an error when the query cannot run; it stops when its consumer stops.
    public func observe() -> AsyncThrowingStream<[DocumentSnapshot], Error> {
        let (stream, continuation) = AsyncThrowingStream<[DocumentSnapshot], Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let persistence = persistence
        let compiled: QuerySQL.Compiled
        do {
            compiled = try compile(columns: "id, kind, revision, body", ordered: true)
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let task = Task.detached {
            let hub = persistence.hub
            let (id, ticks) = hub.subscribe()
            defer { hub.unsubscribe(id) }
            var last: [DocumentSnapshot]?
            for await _ in ticks {
                do {
                    let results = try persistence.snapshots(compiled)
                    if results != last {
                        last = results
                        continuation.yield(results)
                    }
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
