import Foundation

extension Persistence {
    /// Every document of `kind`'s kind and its registered subclasses' kinds, as objects built while
    /// you iterate, in identifier order: Dali's lazy `loadAll`.
    ///
    /// ```swift
    /// for try await square in try persistence.loadAll(kind: Square.self) { print(square.side) }
    /// try persistence.loadAll(kind: Square.self).forEach { print($0.side) }   // synchronous code
    /// ```
    ///
    /// Nothing is read or built until the first element is asked for; each iteration reads one
    /// snapshot (see ``DocumentSequence`` for what it sees while others write, and for errors). An
    /// object alive in the identity map is returned as is, as ``load(_:)`` would.
    ///
    /// - Parameter kind: The class whose documents to read.
    /// - Returns: A sequence that reads as it is iterated.
    /// - Throws: ``DocumentStoreError/databaseDeleted(file:)`` when the store was deleted; errors met while
    ///   iterating are thrown by the iteration (see ``DocumentSequence``).
    public func loadAll<T: Persistable>(kind: T.Type) throws(DocumentStoreError) -> DocumentSequence<T> {
        try loadAll(kind: kind, pageSize: 256)
    }

    /// ``loadAll(kind:)`` reading `pageSize` rows at a time (for tests of the paging).
    package func loadAll<T: Persistable>(kind: T.Type, pageSize: Int) throws(DocumentStoreError) -> DocumentSequence<T> {
        try database.checkNotDeleted()
        return DocumentSequence(persistence: self, pageSize: pageSize)
    }

    /// Every document of `kind`'s kind and its registered subclasses' kinds, built now, in identifier
    /// order, from one read: the eager form of ``loadAll(kind:)``.
    ///
    /// - Parameter kind: The class whose documents to read.
    /// - Returns: Every object, the ones alive in the identity map as they are.
    /// - Throws: What ``DocumentQuery/fetch()`` throws.
    public func loadAllAtOnce<T: Persistable>(kind: T.Type) throws -> [T] {
        try query(kind).sorted(by: .identifier).fetch()
    }
}
