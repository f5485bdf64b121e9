import Foundation

/// The documents of a kind as objects, built one at a time while you iterate: what
/// ``Persistence/loadAll(kind:)`` returns (Dali's generator).
///
/// ```swift
/// for try await square in try persistence.loadAll(kind: Square.self) {
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
/// - A read or build error is thrown where you ask for the element, so it cannot go unseen: loop
///   with `for try await` (the sequence is an `AsyncSequence`), or, in synchronous code, with a
///   throwing cursor as GRDB's: `while let square = try iterator.next()`, ``forEach(_:)``,
///   ``first(where:)``, ``map(_:)`` or `try Array(sequence)`. A `for … in` loop without `try` does not
///   compile (a `Sequence` could only end early on an error, silently). The document that failed is
///   skipped: asking again continues after it.
///
/// ```swift
/// for try await square in try persistence.loadAll(kind: Square.self) { print(square.side) }
/// try persistence.loadAll(kind: Square.self).forEach { print($0.side) }
/// var squares = try persistence.loadAll(kind: Square.self).makeIterator()
/// while let square = try squares.next() { print(square.side) }
/// ```
///
/// Like the objects it builds, a sequence and its iterators are not `Sendable`: iterate where you
/// made it.
public struct DocumentSequence<T: Persistable>: AsyncSequence {
    private let persistence: Persistence
    private let pageSize: Int

    init(persistence: Persistence, pageSize: Int) {
        self.persistence = persistence
        self.pageSize = Swift.max(1, pageSize)
    }

    /// A new iteration, over a new snapshot.
    public func makeAsyncIterator() -> Iterator { makeIterator() }

    /// A new iteration, over a new snapshot, for synchronous code: `while let x = try iterator.next()`.
    public func makeIterator() -> Iterator {
        Iterator(cursor: DocumentCursor(persistence: persistence, pageSize: pageSize))
    }

    /// Calls `body` with each object, in order.
    ///
    /// - Parameter body: Called with each object; what it throws ends the iteration and is rethrown.
    /// - Throws: what ``Iterator/next()`` throws, or what `body` throws.
    public func forEach(_ body: (T) throws -> Void) throws {
        var iterator = makeIterator()
        while let object = try iterator.next() { try body(object) }
    }

    /// The first object that satisfies `predicate`; nothing after it is read or built.
    ///
    /// - Parameter predicate: Whether an object is the one wanted.
    /// - Returns: That object, or `nil` when none is.
    /// - Throws: what ``Iterator/next()`` throws, or what `predicate` throws.
    public func first(where predicate: (T) throws -> Bool) throws -> T? {
        var iterator = makeIterator()
        while let object = try iterator.next() { if try predicate(object) { return object } }
        return nil
    }

    /// `transform` of every object, in order.
    ///
    /// - Parameter transform: What to make of each object.
    /// - Returns: The results.
    /// - Throws: what ``Iterator/next()`` throws, or what `transform` throws.
    public func map<Result>(_ transform: (T) throws -> Result) throws -> [Result] {
        var results: [Result] = []
        try forEach { results.append(try transform($0)) }
        return results
    }

    /// One pass over the documents: a cursor whose ``next()`` throws.
    public struct Iterator: AsyncIteratorProtocol {
        private let cursor: DocumentCursor<T>

        fileprivate init(cursor: DocumentCursor<T>) {
            self.cursor = cursor
        }

        /// The next object, `nil` at the end.
        ///
        /// - Throws: what loading the document throws (``DocumentStoreError/malformedJSON(identifier:offset:reason:)``,
        ///   ``DocumentStoreError/documentRejected(identifier:kind:)``, what `init(with:from:)` throws), or
        ///   a read error. The document that failed is skipped: calling again continues after it.
        public mutating func next() throws -> T? {
            try cursor.next()
        }

        /// The former name of ``next()``, from when the iterator's `next()` could not throw.
        @available(*, deprecated, renamed: "next()")
        public mutating func nextObject() throws -> T? {
            try cursor.next()
        }
    }
}

extension Array where Element: Persistable {
    /// Every object of `documents`, read and built now (`try Array(persistence.loadAll(kind: Square.self))`).
    ///
    /// - Parameter documents: The sequence to read to its end.
    /// - Throws: what ``DocumentSequence/Iterator/next()`` throws.
    public init(_ documents: DocumentSequence<Element>) throws {
        self = try documents.map { $0 }
    }
}
