import Foundation

extension PlistDocument {
    // MARK: Locking

    /// Runs `body` holding the document's exclusive lock, re-entrantly: inside another `withLock` or
    /// `update` of this document on the same thread or task, `body` runs directly. Creates the folder
    /// when missing (the lock lives beside the file).
    ///
    /// ```swift
    /// try document.withLock {
    ///     // No writer replaces the file between the read and the copy.
    ///     if let bytes = try DurableFile.readIfPresent(document.url) {
    ///         try DurableFile.write(bytes, to: backupURL)
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: `FileStorageError` `.lockTimeout`, or the folder's creation error, or what `body` threw.
    public func withLock<R>(_ body: () throws -> R) throws -> R {
        if DocumentLocks.held.contains(lockKey) { return try body() }
        try prepareForWrite()
        return try backend.withExclusiveLock(timeout: lockTimeout) { try markedHeld(body) }
    }

    /// The same, waiting for the lock with `Task.sleep`.
    ///
    /// - Throws: `FileStorageError` `.lockTimeout`, or the folder's creation error, or what `body` threw.
    public func withLock<R>(isolation: isolated (any Actor)? = #isolation, _ body: () throws -> R) async throws -> R {
        if DocumentLocks.held.contains(lockKey) { return try body() }
        try prepareForWrite()
        return try await backend.withExclusiveLock(timeout: lockTimeout, isolation: isolation) { () async throws -> R in
            try markedHeld(body)
        }
    }

    /// Runs `body` holding the document's exclusive lock if no writer holds it now, without waiting;
    /// returns `nil` when one does. Re-entrant as ``withLock(_:)`` is.
    ///
    /// For a reader that must not apply what it reads while a writer is between its own read and
    /// write (a model refreshing itself from the file, say), and that would rather come back later
    /// than wait.
    ///
    /// ```swift
    /// if try document.withLockIfAvailable({ try apply(document.read()) }) == nil {
    ///     // A writer is at work: its change will come with the next refresh.
    /// }
    /// ```
    ///
    /// - Throws: `FileStorageError` when the lock file or the folder cannot be made (a read-only
    ///   folder), or what `body` threw.
    public func withLockIfAvailable<R>(_ body: () throws -> R) throws -> R? {
        if DocumentLocks.held.contains(lockKey) { return try body() }
        try prepareForWrite()
        var entered = false
        do {
            return try backend.withExclusiveLock(timeout: .zero) {
                entered = true
                return try markedHeld(body)
            }
        } catch let error as FileStorageError {
            if !entered, case .lockTimeout = error { return nil }
            throw error
        }
    }

    /// Runs `body` marked as holding this document's lock (the caller has just taken it), so a
    /// `withLock` or `update` inside it runs directly.
    private func markedHeld<R>(_ body: () throws -> R) rethrows -> R {
        try DocumentLocks.$held.withValue(DocumentLocks.held.union([lockKey])) { try body() }
    }

    func withLockTyped<R>(_ body: () throws(FileStorageError) -> R) throws(FileStorageError) -> R {
        do {
            return try withLock { try body() }
        } catch let error as FileStorageError {
            throw error
        } catch {
            throw .io(url, operation: "lock", errno: 0)
        }
    }

    /// Creates the folder before a write (and lets the monitor start using inotify).
    private func prepareForWrite() throws(FileStorageError) {
        if try backend.prepareForWrite() {
            // A new monitor counts from zero: move to a new token range, and listen to the new one.
            currentMonitor.store(Unmanaged.passUnretained(backend.monitor), ordering: .releasing)
            monitorGeneration.add(1, ordering: .releasing)
            state.withLock {
                cache?.token = .max
                cache?.external = nil
                if monitorSubscription != nil { monitorSubscription = subscribeToMonitor() }
            }
        }
    }
}
