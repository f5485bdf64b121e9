import Foundation
import FileStorageKit
import PlistCodec
import Synchronization

/// The connection between one model instance and its file, created by `@PersistedModel` for each instance.
///
/// **Reads.** The first time a property is used, the context finds its file (see `PersistenceLocation`):
/// when there is none, it writes the current values; when there is one, the file's values win over
/// what `init` assigned. After that, gets are served from memory: each one costs two atomic loads and
/// the `FileChangeMonitor`'s token (one more with inotify; see `FreshnessGate`), and the file is read
/// again only when the token says it changed (another instance or process wrote it). A reload assigns the properties whose values
/// changed, so `withObservationTracking` hears of them. Reloads happen on the next get or set of any
/// property of the instance; nothing watches in the background.
///
/// **Writes.** Each set writes durably under FileStorageKit's exclusive lock, re-reading the newest
/// file under the lock and merging only the property that changed, so instances and processes that
/// set different properties lose nothing. Keys the model does not know are kept. Inside `withBatch`
/// and `update`, sets only mark their key, and one write at the end stores them all.
///
/// **Errors** never crash and never throw from a getter or setter: they are reported through
/// `PersistenceErrors` and kept in `lastError`, and the model keeps its in-memory values.
///
/// **Threads.** The context's own state is guarded by a `Mutex`, and the context is `Sendable`. The
/// model's properties are plain stored values, as in an `@Observable` class: share an instance
/// across threads only with your own synchronization (or through `update`, which holds the lock).
///
/// A model reaches its context as `_$persistence`; what a user reads of it is also on the model:
///
/// ```swift
/// let settings = NotesSettings()
/// settings.launches += 1
/// print(settings._$persistence.url?.path ?? "not resolved yet")   // known after the first use
/// if let error = settings.persistenceError { print(error) }       // the context's lastError
/// ```
// @unchecked Sendable: `resolved` is written once, under `firstUseGate`, before `gate` opens, and only read after; every other field is a `Mutex`, an atomic or a constant
public final class PersistenceContext<Model: PersistedModel>: @unchecked Sendable where Model._PersistedRoot == Model {
    /// What the context resolves on first use and never changes after.
    struct Setup {
        let url: URL
        let documentName: String
        /// The file: lock, cache, corrupt files moved aside, change deliveries.
        let document: PlistDocument<PlistDictionary?>
        let fields: [PersistedField<Model>]
        let format: PersistenceFormat
        var monitor: FileChangeMonitor { document.monitor }
    }

    /// Everything that changes, guarded by `state`.
    struct State {
        /// The last good contents of the file, unknown keys included.
        var document = PlistDictionary()
        /// Keys set in memory and not written yet, in the order they were set.
        var dirty: [String] = []
        /// Open `withBatch` and `update` scopes: while positive, sets only mark their key dirty.
        var deferDepth = 0
        /// Files written (for tests).
        var writeCount = 0
        /// Reloads that read the file (for tests).
        var loadCount = 0
        /// The last error reported for this instance.
        var lastError: PersistenceError?
        /// The document's change deliveries (see `watch`).
        var subscription: ChangeSubscription?

        mutating func markDirty(_ key: String) {
            if !dirty.contains(key) { dirty.append(key) }
        }
    }

    /// The hot path's state: whether the context is ready, and whether the file changed since.
    @usableFromInline let gate = FreshnessGate()
    /// Set while one thread reloads, so others (and re-entrant observers) serve memory meanwhile.
    private let reloading = Atomic<Bool>(false)
    /// Written once, under `firstUseGate`, before the gate opens; keeps the gate's monitor alive.
    /// (The document keeps every monitor it ever used alive, so the gate's stays valid.)
    private var resolved: Setup?
    private let firstUseGate = Mutex<Void>(())
    let state = Mutex(State())

    /// Creates an unconnected context. It does not touch the model: it is created among the instance's
    /// stored properties, before `init` runs. The file is found on first use.
    public init() {}

    /// The file, once the instance has been used (`nil` before).
    public var url: URL? { setup?.url }

    /// The last error reported for this instance, if any.
    public var lastError: PersistenceError? { state.withLock { $0.lastError } }

    /// The setup, once the gate is open (the first use has begun).
    var setup: Setup? { gate.isReady ? resolved : nil }

    // MARK: Reading

    /// Called by every generated getter and setter before it touches the backing storage: loads the
    /// file on first use, and reloads it when it changed on disk.
    @inlinable @inline(__always)
    public func willRead(_ model: Model) {
        if gate.isFresh { return }
        refresh(model)
    }

    @usableFromInline
    func refresh(_ model: Model) {
        guard let setup else {
            firstUse(model)
            return
        }
        guard reloading.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        defer { reloading.store(false, ordering: .releasing) }
        // Under the document's lock, so that what it reads is still the file when it is applied: read
        // without it, a refresh could read the file just before an `update` of this instance on another
        // task wrote it, and apply that older file after the next `update` had loaded the newer one,
        // which then wrote its change over the older value (a lost increment). A writer holding the
        // lock means the file is about to change: skip, and the next read refreshes (the token still
        // says stale). Where no lock can be taken at all (a read-only folder), read as before.
        do {
            _ = try setup.document.withLockIfAvailable { load(model, setup, firstLoad: false) }
        } catch {
            load(model, setup, firstLoad: false)
        }
    }

    /// Records that memory matches the file as of monitor token `token`.
    func markSeen(_ token: UInt64) {
        gate.markSeen(token)
    }

    /// Resolves the file, then loads it, or writes the current values when there is none.
    private func firstUse(_ model: Model) {
        firstUseGate.withLock { _ in
            guard !gate.isReady else { return }
            let name = Model._$persistedDocumentName
            let storage = PersistenceLocation.currentStorage
            let fileName = PersistenceLocation.fileName(forDocument: name)
            // With its folder present, the monitor can use inotify; a failure shows up on the first write.
            if !storage.isMemory { try? AppDirectories.createFolder(storage.url()) }
            let reportCorrupt = UncheckedSendable { [weak self] (error: FileStorageError, movedTo: URL?) in
                self?.reportCorrupt(error, movedTo: movedTo)
            }
            let document = PersistenceFile.document(fileName, in: storage, format: Model.persistenceFormat) {
                reportCorrupt.value($0, $1)
            }
            let setup = Setup(url: document.url, documentName: name, document: document, fields: Model._$persistedFields,
                              format: Model.persistenceFormat)
            resolved = setup
            gate.markSeen(setup.monitor.changeToken)
            // Open before loading: observers notified by the load may read the model, and must not
            // come back here (`firstUseGate` is not re-entrant).
            gate.open(with: setup.monitor)
            load(model, setup, firstLoad: true)
            watch(model, setup)
        }
    }

    /// Reads the file and brings its changes into the model. On first use, a missing file (or a
    /// corrupt one, which the document moves aside) is replaced by the current values.
    func load(_ model: Model, _ setup: Setup, firstLoad: Bool) {
        // Read the token before the file: a change after the read leaves the token ahead, so it is not missed.
        markSeen(setup.monitor.changeToken)
        state.withLock { $0.loadCount += 1 }
        do {
            let document = try PersistenceContextOperation.$current.withValue(.load) { () throws(FileStorageError) in
                try setup.document.read()
            }
            if let document {
                apply(document, to: model, setup, firstLoad: firstLoad)
            } else if firstLoad {
                writeInitial(model, setup)
            }
        } catch {
            report(setup, .load, .file(error as? FileStorageError ?? .io(setup.url, operation: "read", errno: 0)))
        }
    }

    /// Makes `document` the last known file and assigns the properties it changed, except those set in
    /// memory and not yet written. On first load, a property changes when the file's value differs from
    /// the current one; later, when it differs from the previous file's.
    func apply(_ document: PlistDictionary, to model: Model, _ setup: Setup, firstLoad: Bool,
               skipping written: Set<String> = []) {
        let (previous, dirty) = state.withLock { s in
            defer { s.document = document }
            return (s.document, Set(s.dirty))
        }
        var errors: [PersistenceError.Cause] = []
        for field in setup.fields where !dirty.contains(field.key) && !written.contains(field.key) {
            let new = field.value(in: document)
            let old = firstLoad ? (try? field.encode(model)) ?? nil : field.value(in: previous)
            guard new != old else { continue }
            if let new {
                do {
                    try field.assign(model, new)
                } catch {
                    errors.append(.undecodableValue(key: field.key, message: "\(error)"))
                }
            } else if !firstLoad, let assignNil = field.assignNil {
                // An optional left out of the file is `nil` (as a Codable struct decodes it).
                assignNil(model)
            }
        }
        for cause in errors { report(setup, .load, cause) }
    }

    /// Reports a corrupt file the document found (and moved aside, unless `movedTo` is `nil`).
    func reportCorrupt(_ error: FileStorageError, movedTo: URL?) {
        guard let setup, case .corrupt(_, let plistError) = error else { return }
        report(setup, PersistenceContextOperation.current, .corruptFile(plistError, movedTo: movedTo))
    }

    func report(_ setup: Setup, _ operation: PersistenceError.Operation, _ cause: PersistenceError.Cause) {
        let error = PersistenceError(documentName: setup.documentName, url: setup.url, operation: operation, cause: cause)
        state.withLock { $0.lastError = error }
        PersistenceErrors.report(error)
    }
}
