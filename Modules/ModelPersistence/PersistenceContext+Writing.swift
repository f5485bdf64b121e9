import Foundation
import FileStorageKit
import PlistCodec

extension PersistenceContext {
    // MARK: Sets

    /// Called by every generated setter after it changed the backing storage of `key`: writes the change
    /// now, or, inside `withBatch` or `update`, marks it for the write at the end.
    public func didWrite(_ model: Model, key: String) {
        if setup == nil { willRead(model) }
        let writeNow = state.withLock { s in
            s.markDirty(key)
            return s.deferDepth == 0
        }
        if writeNow { writePending(model, reporting: true) }
    }

    /// Opens a batch: sets only mark their keys until the matching `endDeferring`.
    func beginDeferring() {
        state.withLock { $0.deferDepth += 1 }
    }

    /// Closes a batch; when it was the outermost, writes what it set (reporting errors).
    func endDeferring(_ model: Model) {
        let write = state.withLock { s in
            s.deferDepth -= 1
            return s.deferDepth == 0 && !s.dirty.isEmpty
        }
        if write { writePending(model, reporting: true) }
    }

    /// Writes the keys set and not yet written, under the lock. Returns the error, if any; reports it
    /// too when `reporting` (the implicit paths: sets and batch ends).
    @discardableResult
    func writePending(_ model: Model, reporting: Bool) -> PersistenceError? {
        guard let setup, state.withLock({ !$0.dirty.isEmpty }) else { return nil }
        do {
            try PersistenceContextOperation.$current.withValue(.save) {
                try setup.document.withLock { try writeLocked(model, setup) }
            }
            return nil
        } catch {
            let failure = persistenceError(setup, .save, error)
            if reporting { record(failure) }
            return failure
        }
    }

    /// On first use without a usable file: writes every property, unless another writer created the
    /// file meanwhile, whose values then win.
    func writeInitial(_ model: Model, _ setup: Setup) {
        do {
            try PersistenceContextOperation.$current.withValue(.save) {
                try setup.document.withLock {
                    if let document = try setup.document.readFresh() {
                        apply(document, to: model, setup, firstLoad: true)
                    } else {
                        try writeLocked(model, setup)
                    }
                }
            }
        } catch {
            record(persistenceError(setup, .save, error))
        }
    }

    /// Merges the dirty keys into the newest file and writes it; with no usable file (missing, or corrupt
    /// and moved aside), writes every property and the unknown keys last seen. The caller holds the lock.
    ///
    /// When the write fails, the keys stay dirty, so the next write retries them.
    func writeLocked(_ model: Model, _ setup: Setup) throws {
        let (keys, lastGood) = state.withLock { s in
            defer { s.dirty = [] }
            return (s.dirty, s.document)
        }
        var written: [PersistedField<Model>] = []
        var causes: [PersistenceError.Cause] = []
        var laidOut = PlistDictionary()
        let writesBefore = setup.document.writeCount
        do {
            try setup.document.update { file in
                var document = file ?? lastGood
                written = file == nil ? setup.fields : setup.fields.filter { keys.contains($0.key) }
                for field in written {
                    do {
                        let value = try field.encode(model)
                        // A renamed property moves to its current key.
                        // (Unless another property now uses that key: a swap of two names.)
                        for old in field.previousKeys where !setup.fields.contains(where: { $0.key == old }) {
                            document.removeValue(forKey: old)
                        }
                        document[field.key] = value
                    } catch {
                        causes.append(.unencodableValue(key: field.key, message: "\(error)"))
                    }
                }
                laidOut = PersistenceFile.laidOut(document, fields: setup.fields)
                file = laidOut
            }
        } catch let error as FileStorageError {
            if case .encodingFailed(_, let message) = error {
                // The document cannot be serialized (an XML string with a NUL): retrying would fail again.
                causes.append(.unencodableValue(key: nil, message: message))
                for cause in causes { report(setup, .save, cause) }
                return
            }
            state.withLock { s in for key in keys { s.markDirty(key) } }
            for cause in causes { report(setup, .save, cause) }
            throw error
        }
        if setup.document.writeCount != writesBefore { state.withLock { $0.writeCount += 1 } }
        for cause in causes { report(setup, .save, cause) }
        // Bring in what other writers changed meanwhile; what was just written is already in memory.
        // A closure, not `\.key`: a key path into the generic field type is built at run time on every set.
        apply(laidOut, to: model, setup, firstLoad: false, skipping: Set(written.map { $0.key }))
    }

    // MARK: Read-modify-write

    /// Holds the lock across a reload from the file, `body`, and the write of what `body` set.
    func update<R>(_ model: Model, _ body: (Model) throws -> R) throws -> R {
        willRead(model)
        guard let setup else {
            // Unreachable: `willRead` resolves the setup.
            throw PersistenceError(documentName: Model._$persistedDocumentName,
                                   url: PersistenceLocation.url(forDocument: Model._$persistedDocumentName),
                                   operation: .save, cause: .unencodableValue(key: nil, message: "no context"))
        }
        do {
            return try PersistenceContextOperation.$current.withValue(.save) {
                try setup.document.withLock { try updateLocked(model, setup, body) }
            }
        } catch let error as FileStorageError {
            throw persistenceError(setup, .save, error)
        }
    }

    /// The same, waiting for the lock with `Task.sleep`, so a task that waits never holds a pool thread.
    func update<R>(_ model: Model, isolation: isolated (any Actor)?, _ body: (Model) throws -> R) async throws -> R {
        willRead(model)
        guard let setup else { return try update(model, body) }
        do {
            return try await setup.document.withLock(isolation: isolation) {
                try PersistenceContextOperation.$current.withValue(.save) { try updateLocked(model, setup, body) }
            }
        } catch let error as FileStorageError {
            throw persistenceError(setup, .save, error)
        }
    }

    private func updateLocked<R>(_ model: Model, _ setup: Setup, _ body: (Model) throws -> R) throws -> R {
        beginDeferring()
        let result: R
        do {
            markSeen(setup.monitor.changeToken)
            let file = try PersistenceContextOperation.$current.withValue(.load) { () throws(FileStorageError) in
                try setup.document.readFresh()
            }
            if let file { apply(file, to: model, setup, firstLoad: false) }
            do {
                result = try body(model)
            } catch {
                // Memory already holds what `body` set before it threw: keep the file in step.
                try? writeLocked(model, setup)
                throw error
            }
            try writeLocked(model, setup)
        } catch {
            state.withLock { $0.deferDepth -= 1 }
            throw error
        }
        // Another thread may have set a property after the write, while sets were still deferred.
        let more = state.withLock { s in
            s.deferDepth -= 1
            return s.deferDepth == 0 && !s.dirty.isEmpty
        }
        if more { try writeLocked(model, setup) }
        return result
    }

    /// Marks every property for writing and writes them now (at the end, inside a batch or `update`).
    func saveAll(_ model: Model) {
        willRead(model)
        guard let setup else { return }
        let writeNow = state.withLock { s in
            for field in setup.fields { s.markDirty(field.key) }
            return s.deferDepth == 0
        }
        if writeNow { writePending(model, reporting: true) }
    }

    /// Flushes pending sets now; throws what the write hit.
    func flush(_ model: Model) throws(PersistenceError) {
        if let error = writePending(model, reporting: false) { throw error }
    }

    // MARK: Helpers

    func record(_ error: PersistenceError) {
        state.withLock { $0.lastError = error }
        PersistenceErrors.report(error)
    }

    func persistenceError(_ setup: Setup, _ operation: PersistenceError.Operation, _ error: any Error) -> PersistenceError {
        if let error = error as? PersistenceError { return error }
        let cause: PersistenceError.Cause
        if let error = error as? FileStorageError {
            cause = .file(error)
        } else {
            cause = .unencodableValue(key: nil, message: "\(error)")
        }
        return PersistenceError(documentName: setup.documentName, url: setup.url, operation: operation, cause: cause)
    }
}
