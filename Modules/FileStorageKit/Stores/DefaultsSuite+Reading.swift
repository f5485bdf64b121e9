import Foundation
import PlistCodec

extension DefaultsSuite {
    // MARK: Reading

    /// The value for `key`: the stored one, else the registered default.
    public func object(forKey key: String) -> PlistValue? {
        // The hot path: one atomic load and one lock while the file is unchanged.
        let token = document.changeToken
        if let hit = state.withLock({ s -> PlistValue?? in s.seenToken == token ? .some(s.stored[key] ?? s.registered[key]) : nil }) {
            return hit
        }
        refreshIfChanged()
        return state.withLock { $0.stored[key] ?? $0.registered[key] }
    }

    /// Every key and value, registered defaults included (stored values win).
    public func dictionaryRepresentation() -> [String: PlistValue] {
        refreshIfChanged()
        return state.withLock { s in
            var all = s.registered
            for (k, v) in s.stored { all[k] = v }
            return all
        }
    }

    /// Sets values returned for keys that have none stored. Not written to the file.
    public func register(defaults: [String: PlistValue]) {
        state.withLock { s in s.registered.merge(defaults) { _, new in new } }
    }

    /// Re-reads the file now, whatever the monitor says.
    ///
    /// - Throws: `.corrupt` (the last good values are kept) or another `FileStorageError`.
    public func reload() throws(FileStorageError) {
        try refresh(force: true)
    }

    // MARK: Reading internals

    func refreshIfChanged() {
        try? refresh(force: false)
    }

    /// Reads the file when its token moved (or always, when `force`), and tells observers which keys changed.
    ///
    /// What it read is dropped when one of this suite's writes finished meanwhile: the read may be
    /// older than that write, whose own store holds what the file had after it.
    ///
    /// While an error is recorded, the file itself is read: only what it holds now may clear the error.
    /// (A refresh for this suite's own earlier write, running after another process damaged the file
    /// and a set was refused, but before the damage's event moved the token, got the cached good
    /// values from `read()` and cleared the set's `.corrupt`: CI of ba30f9e.)
    private func refresh(force: Bool) throws(FileStorageError) {
        let token = document.changeToken
        guard let (writes, refused, fresh) = state.withLock({ s -> (UInt64, UInt64, Bool)? in
            force || s.seenToken != token ? (s.finishedWrites, s.refusedWrites, force || s.lastLoadError != nil) : nil
        }) else { return }
        let contents: Contents
        do {
            contents = fresh ? try document.readFresh() : try document.read()
        } catch {
            state.withLock { s in
                guard s.finishedWrites == writes else { return }
                s.seenToken = token
                s.lastLoadError = error
            }
            throw error
        }
        let told = state.withLock { s -> ([String], [@Sendable (String) -> Void]) in
            // A write refused meanwhile found the file damaged: this read may be older than that.
            guard s.finishedWrites == writes, s.refusedWrites == refused else { return ([], []) }
            s.seenToken = token
            s.lastLoadError = nil
            s.fileFormat = contents.format
            return replaceStored(with: contents.values, &s)
        }
        tell(told)
    }
}
