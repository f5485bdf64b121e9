import Foundation

extension PlistDocument {
    // MARK: Writing

    /// Reads the newest content under the exclusive lock, lets `body` change it, and writes the result
    /// durably when its bytes differ from the file's. Returns what `body` returned.
    ///
    /// - Throws: `body`'s error (nothing is written), `.nestedUpdate` inside another `update` of this
    ///   document, `.corrupt` (policy `.report`), `.lockTimeout`, or the write's `FileStorageError`.
    @discardableResult
    public func update<R>(_ body: (inout Content) throws -> R) throws -> R {
        return try withLock { try updateLocked(body) }
    }

    /// The same, waiting for the lock with `Task.sleep`, so a waiting task never holds a pool thread.
    ///
    /// - Throws: As the synchronous ``update(_:)``: `body`'s error (nothing is written),
    ///   `.nestedUpdate`, `.corrupt`, `.lockTimeout`, or the write's `FileStorageError`.
    @discardableResult
    public func update<R>(isolation: isolated (any Actor)? = #isolation,
                          _ body: (inout Content) throws -> R) async throws -> R {
        return try await withLock(isolation: isolation) { try updateLocked(body) }
    }

    private func updateLocked<R>(_ body: (inout Content) throws -> R) throws -> R {
        guard !DocumentLocks.updating.contains(lockKey) else { throw FileStorageError.nestedUpdate(url) }
        // Always the bytes, under the lock: a writer outside the lock protocol (one that rewrites the
        // file in place and has not closed it) raises no event, so no token can vouch for the cache.
        let (token, external) = tokens()
        let seen = Seen(token: token, external: external, epoch: state.withLock { fileReads += 1; return writeEpoch })
        let bytes = try backend.read()
        let old: Content
        if let bytes {
            old = try state.withLock({ cache?.bytes == bytes ? cache?.content : nil })
                ?? decodeRemembering(bytes, seen, locked: true)
        } else {
            old = coding.empty()
        }
        var content = old
        let result = try DocumentLocks.$updating.withValue(DocumentLocks.updating.union([lockKey])) {
            try body(&content)
        }
        let encoded: Data?
        do {
            encoded = try coding.encode(content, old)
        } catch let error as FileStorageError {
            throw error
        } catch {
            throw FileStorageError.encodingFailed(url, "\(error)")
        }
        guard let encoded, encoded != bytes else {
            _ = remember(seen, bytes: bytes, content: encoded == nil ? old : content)
            return result
        }
        // While the write is under way no read may vouch for bytes it caches (`remember`): they may be
        // older than this write's. The cache itself stays good until the rename, and a read that uses it
        // while the write finishes sees the file as it was, as any read overlapping a write may.
        state.withLock { writeEpoch += 1 }
        do {
            try backend.write(encoded)
        } catch {
            // The rename may have happened (a folder that fails to sync): its own event must not pass
            // the old cache off as the file.
            state.withLock {
                writeEpoch += 1
                cache?.token = .max
                cache?.external = nil
            }
            throw error
        }
        let shown = coding.written?(encoded, content) ?? content
        state.withLock {
            cache = Cache(token: token, bytes: encoded, content: shown, external: external)
            writes += 1
            writeEpoch += 1
        }
        return result
    }

    /// Removes the file under the lock; a missing file is not an error, and removing one writes
    /// nothing (no lock file), so it works in a folder this process may not write to.
    ///
    /// - Throws: `FileStorageError`: `.lockTimeout`, `.permissionDenied`, `.io`.
    public func remove() throws(FileStorageError) {
        guard backend.exists() else {
            state.withLock { cache = nil }
            return
        }
        try withLockTyped { () throws(FileStorageError) in
            try backend.remove()
            state.withLock { cache = nil }
        }
    }
}
