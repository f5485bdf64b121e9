import Foundation
import PlistCodec

extension PlistDocument {
    // MARK: Reading

    /// The content: from memory when the change token has not moved since the last read, else read
    /// from the file (without the lock: every write replaces the file by a rename, so a read sees one
    /// whole version). No file gives `coding.empty()`.
    ///
    /// - Throws: `.corrupt` (policy `.report`), `.decodingFailed`, or the read's `FileStorageError`.
    public func read() throws(FileStorageError) -> Content {
        let token = changeToken
        if let content = state.withLock({ cache?.token == token ? cache?.content : nil }) { return content }
        let external = externalChanges
        if let content = state.withLock({ () -> Content? in
            guard var known = cache else { return nil }
            // The token moved only for this document's own writes (the inotify hub matched their
            // renames), and the cache holds the last of them: the file still has these bytes. Not
            // while a write is under way: its rename may already have moved the token, and the cache
            // still holds the bytes before it until the write records its own (a reader would take
            // the old content for the new token, and keep it as current).
            guard let external, known.external == external, writeEpoch % 2 == 0 else { return nil }
            known.token = token
            cache = known
            return known.content
        }) { return content }
        return try load(token: token, external: external, locked: false)
    }

    /// The content read from the file now, whatever the change token says.
    ///
    /// - Throws: `FileStorageError`: `.corrupt` (policy `.report`; under `.moveAside` the file is moved
    ///   and the empty content returned), `.decodingFailed`, `.permissionDenied`, `.io`.
    public func readFresh() throws(FileStorageError) -> Content {
        let (token, external) = tokens()
        return try load(token: token, external: external, locked: false)
    }

    /// Reads the bytes and decodes them unless they are the cached ones. `token` and `external` were
    /// read before the bytes.
    private func load(token: UInt64, external: UInt64?, locked: Bool) throws(FileStorageError) -> Content {
        let epoch = state.withLock { fileReads += 1; return writeEpoch }
        let bytes = try backend.read()
        if let content = state.withLock({ () -> Content? in
            guard var known = cache, known.bytes == bytes else { return nil }
            known.token = token
            if epoch == writeEpoch && epoch % 2 == 0 { known.external = external }
            cache = known
            return known.content
        }) { return content }
        let seen = Seen(token: token, external: external, epoch: epoch)
        guard let bytes else { return remember(seen, bytes: nil, content: coding.empty()) }
        return try decodeRemembering(bytes, seen, locked: locked)
    }

    /// What a reader saw before it read the bytes it caches: the tokens, and the write epoch.
    struct Seen {
        var token: UInt64
        var external: UInt64?
        var epoch: UInt64
    }

    /// Caches `content` of `bytes`; it vouches for later moves of the token (`external`) only when no
    /// write of this document overlapped the read (an older read must not pass for the newest write).
    ///
    /// A read that a write of this document overlapped, and that ends after the write recorded what
    /// it wrote, caches nothing: the write's record is the newest this document knows, and it vouches
    /// for the write's own event, where this read's could not (the next read would go to the file).
    func remember(_ seen: Seen, bytes: Data?, content: Content) -> Content {
        state.withLock {
            let settled = seen.epoch == writeEpoch && seen.epoch % 2 == 0
            if !settled, writeEpoch % 2 == 0, writeEpoch != seen.epoch { return }
            cache = Cache(token: seen.token, bytes: bytes, content: content, external: settled ? seen.external : nil)
        }
        return content
    }

    private func decode(_ bytes: Data) throws(FileStorageError) -> Content {
        do {
            return try coding.decode(bytes)
        } catch let error as FileStorageError {
            throw error
        } catch {
            if let malformed = PlistError.found(in: error) { throw .corrupt(url, malformed) }
            throw .decodingFailed(url, "\(error)")
        }
    }

    /// Moves `bytes` aside if the file still holds them (another writer may have replaced it).
    private func quarantine(_ bytes: Data, label: String, error: FileStorageError, locked: Bool) throws(FileStorageError) {
        let move = { [self] () throws(FileStorageError) -> URL? in
            guard try backend.read() == bytes else { return nil }
            return try backend.moveAside(label: label)
        }
        do {
            let movedTo: URL?
            if locked {
                movedTo = try move()
            } else {
                movedTo = try withLockTyped { () throws(FileStorageError) in try move() }
            }
            if let movedTo { onCorruptFile?(error, movedTo) }
        } catch let failure {
            onCorruptFile?(error, nil)
            throw failure
        }
    }

    /// Decodes `bytes` and caches them; a corrupt file is moved aside (policy permitting), taking the
    /// lock unless the caller holds it (`locked`), and the content is then empty.
    func decodeRemembering(_ bytes: Data, _ seen: Seen, locked: Bool) throws(FileStorageError) -> Content {
        // An empty file holds nothing to lose, and is most often one another program has just created
        // and is still writing in place (its `IN_CREATE` comes before its bytes). Moving it aside would
        // take that writer's bytes with it: under `.moveAside` it reads as no content instead. (Under
        // `.report` it is reported as corrupt and never written over, which loses nothing either.)
        if bytes.isEmpty, case .moveAside = corruptFilePolicy { return remember(seen, bytes: bytes, content: coding.empty()) }
        do {
            return remember(seen, bytes: bytes, content: try decode(bytes))
        } catch {
            guard case .corrupt = error, case .moveAside(let label) = corruptFilePolicy else { throw error }
            try quarantine(bytes, label: label, error: error, locked: locked)
            return coding.empty()
        }
    }
}
