import Foundation

/// The documents of a kind as objects, built one at a time while you iterate: what
/// ``Persistence/loadAll(kind:)`` returns (Dali's generator).
///
/// ```swift
/// for square in try persistence.loadAll(kind: Square.self) {
///     if square.side > 10 { break }        // nothing past this square is read or built
/// }
/// ```
///
/// - Nothing is read, built or put in the identity map until the first element is asked for; each
///   step builds one object (or returns the live instance, unbuilt, when the identity map has one:
///   the same instance ``Persistence/load(_:)`` gives).
/// - Each iteration reads one snapshot, taken when it asks for its first element: documents saved or
///   deleted after that, by anyone, do not change what it returns. Outside a transaction the snapshot
///   is a read transaction of its own, held until the iteration reaches its end or its iterator is
///   released (it keeps the write-ahead log from being checkpointed past it, and makes
///   ``Persistence/deleteDatabase()`` refuse). Inside ``Persistence/transaction(_:)`` the iteration reads
///   through the transaction, a page at a time, and sees what it wrote before each page; it must end
///   within the transaction (afterwards it stops with ``DocumentStoreError/misuse(_:)``).
/// - Objects come in identifier order; a superclass's sequence includes its registered subclasses'
///   documents, as of the first element.
/// - A `for … in` loop cannot throw: a document that cannot be built (or a read that fails) ends the
///   loop early, and ``failure`` says why. Call ``Iterator/nextObject()`` to have it thrown instead,
///   or use ``Persistence/loadAllAtOnce(kind:)``.
///
/// Like the objects it builds, a sequence and its iterators are not `Sendable`.
public struct DocumentSequence<T: Persistable>: Sequence {
    private let persistence: Persistence
    private let pageSize: Int
    private let outcome = Outcome()

    init(persistence: Persistence, pageSize: Int) {
        self.persistence = persistence
        self.pageSize = Swift.max(1, pageSize)
    }

    /// The error that ended this sequence's latest `for … in` iteration early; `nil` when it ran to
    /// its end (or was broken off by the loop itself).
    public var failure: (any Error)? { outcome.failure }

    /// A new iteration, over a new snapshot.
    public func makeIterator() -> Iterator {
        outcome.failure = nil
        return Iterator(cursor: DocumentCursor(persistence: persistence, pageSize: pageSize), outcome: outcome)
    }

    /// One pass over the documents.
    public struct Iterator: IteratorProtocol {
        private let cursor: DocumentCursor<T>
        private let outcome: Outcome

        fileprivate init(cursor: DocumentCursor<T>, outcome: Outcome) {
            self.cursor = cursor
            self.outcome = outcome
        }

        /// The next object; `nil` at the end, or when building it failed (see ``DocumentSequence/failure``).
        public mutating func next() -> T? {
            do {
                return try cursor.next()
            } catch {
                outcome.failure = error
                return nil
            }
        }

        /// The next object, `nil` at the end.
        ///
        /// - Throws: what loading the document throws (``DocumentStoreError/malformedJSON(identifier:offset:reason:)``,
        ///   ``DocumentStoreError/documentRejected(identifier:kind:)``, what `init(with:from:)` throws), or
        ///   a read error. The document that failed is skipped: calling again continues after it.
        public mutating func nextObject() throws -> T? {
            try cursor.next()
        }
    }

    /// Where a `for … in` loop's error goes.
    fileprivate final class Outcome {
        var failure: (any Error)?
    }
}
