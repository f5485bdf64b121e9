import Foundation
import PlistCodec

extension DefaultsSuite {
    // MARK: Writing

    /// Stores `value` for `key` (or removes the key when `nil`), durably, merging into the newest file.
    ///
    /// ```swift
    /// try suite.set(.dictionary(["width": .int(800), "height": .int(600)]), forKey: "window")
    /// ```
    ///
    /// - Throws: `FileStorageError`, and nothing is written: `.lockTimeout` when another writer held the
    ///   lock past ``lockTimeout``, `.corrupt` when the file is not a valid property list (it is never
    ///   overwritten), `.permissionDenied`, `.diskFull`, `.symlinkOutsideFolder` or `.io` from the
    ///   durable write.
    public func set(_ value: PlistValue?, forKey key: String) throws {
        try mutate { $0[key] = value }
    }

    /// Removes the stored value for `key`; the registered default, if any, shows through again.
    ///
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func removeObject(forKey key: String) throws {
        try set(nil, forKey: key)
    }

    /// Atomically reads, changes and writes the value for `key` under the exclusive lock, so no other
    /// thread or process can write in between. `body` sees `nil` when the key is not stored.
    ///
    /// ```swift
    /// try suite.update(forKey: "launches") { $0 = .int(($0?.intValue ?? 0) + 1) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - body: Changes the value; setting it to `nil` removes the key. Keep it short: the file is
    ///     locked meanwhile.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or a `FileStorageError`; nothing is written either way.
    ///   `.lockTimeout` when another writer held the lock past ``lockTimeout``, `.corrupt` when the
    ///   file is not a valid property list (it is never overwritten), `.nestedUpdate` when called
    ///   inside another `update` of the same suite, `.permissionDenied`, `.diskFull`,
    ///   `.symlinkOutsideFolder` or `.io` from the durable write.
    @discardableResult
    public func update<R>(forKey key: String, _ body: (inout PlistValue?) throws -> R) throws -> R {
        try mutate { dict in
            var value = dict[key]
            let result = try body(&value)
            dict[key] = value
            return result
        }
    }

    /// Changes many keys in one locked read-merge-write.
    ///
    /// ```swift
    /// try suite.updateAll { values in
    ///     values["width"] = .int(800)
    ///     values["height"] = .int(600)
    /// }
    /// ```
    ///
    /// - Throws: What `body` threw, or a `FileStorageError` as ``update(forKey:_:)``; nothing is written.
    @discardableResult
    public func updateAll<R>(_ body: (inout PlistDictionary) throws -> R) throws -> R {
        try mutate(body)
    }

    // MARK: Writing internals

    private func mutate<R>(_ change: (inout PlistDictionary) throws -> R) throws -> R {
        var result: R?
        let contents: Contents
        do {
            contents = try document.update { contents -> Contents in
                result = try change(&contents.values)
                return contents
            }
        } catch {
            recordLoadFailure(error)
            throw error
        }
        finishWrite(contents)
        return result!
    }

    /// A write refused because the file does not read (`.corrupt`) says why in ``lastLoadError`` at
    /// once, whether or not a refresh read the damaged file first (without this, a set straight after
    /// the damage left it `nil` unless the change thread had refreshed in between).
    private func recordLoadFailure(_ error: any Error) {
        guard let error = error as? FileStorageError, case .corrupt = error else { return }
        state.withLock { s in
            s.lastLoadError = error
            s.refusedWrites += 1
        }
    }

    /// The same, waiting for the lock with `Task.sleep`: never holds a cooperative-pool thread.
    func mutate<R>(_ change: (inout PlistDictionary) throws -> R) async throws -> R {
        var result: R?
        let contents: Contents
        do {
            contents = try await document.update { contents -> Contents in
                result = try change(&contents.values)
                return contents
            }
        } catch {
            recordLoadFailure(error)
            throw error
        }
        finishWrite(contents)
        return result!
    }

    /// Serves what the file now holds, and tells observers.
    private func finishWrite(_ written: Contents) {
        // The document's cache holds what the file says (an XML file keeps dates to the second).
        // The token is taken before the read and stored with what was read, as `refresh` does: if
        // another process's write is refreshed in between, this store of older values carries the
        // older token, so the next read sees the token moved and reads again, instead of serving
        // the older values as current.
        let writes = state.withLock { s in
            s.finishedWrites += 1
            return s.finishedWrites
        }
        let token = document.changeToken
        let contents = (try? document.read()) ?? written
        let told = state.withLock { s -> ([String], [@Sendable (String) -> Void]) in
            // Another write finished since this one: its store is at least as new as this read.
            guard s.finishedWrites == writes else { return ([], []) }
            s.seenToken = token
            s.fileFormat = contents.format
            s.lastLoadError = nil
            return replaceStored(with: contents.values, &s)
        }
        tell(told)
    }
}
