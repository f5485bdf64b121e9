import Foundation
import TestSupport

/// One of the two SQLite stores, as the shared fault suite drives it: ManagedStorage
/// (``ManagedStoreUnderTest``) and DocumentStore (``DocumentStoreUnderTest``). Each fault is written once
/// in `SQLiteStoreFaultTests`; what differs is how a store writes, counts and names its errors.
protocol SQLiteStoreUnderTest: Sendable, CustomStringConvertible {
    /// The store's probe program (built by `ci/test`).
    var probe: String { get }
    /// The probe's arguments for one write of `bytes` characters under `id` (its own transaction).
    func probeWrite(_ folder: URL, id: Int, bytes: Int) -> [String]
    /// The probe's arguments for opening the store and exiting.
    func probeOpen(_ folder: URL) -> [String]
    /// The probe's arguments for a write loop that prints `ready N` and `committed N ...` lines.
    func probeWriteLoop(_ folder: URL) -> [String]
    /// Opens (creating) the store `Store.sqlite` in `folder`, polling for other processes' commits
    /// every `pollInterval` while something listens.
    func open(_ folder: URL, busyTimeout: Duration, walSizeLimit: Int, pollInterval: Duration) throws -> any OpenSQLiteStore
    /// After a killed write loop: the store opens, holds no half transaction, and holds every
    /// transaction the probe reported; returns how many it reported.
    func checkAfterKill(_ folder: URL, _ kill: KilledProbe) throws -> Int
    /// Opens the store of `folder`, which may be damaged, waiting `lockTimeout` for other instances to
    /// let go before moving it aside; says what the store reported (its own checks, such as a report
    /// on its error hook, are made here).
    func openDamaged(_ folder: URL, lockTimeout: Duration) throws -> Recovery
    /// The store's typed error `error` as the fault both stores name alike (matched by `case` on the
    /// store's own error type); `nil` for any other error.
    func fault(_ error: any Error) -> StoreFault?
}

/// The faults both stores report with a case of their own public error type (ManagedStorage's
/// `StorageError`, DocumentStore's `DocumentStoreError`): one case per kind of SQLiteSupport's
/// `SQLiteFailure`, with the file it names.
enum StoreFault: Equatable, CustomStringConvertible {
    case busyTimeout(file: String, seconds: Double)
    case readOnly(file: String)
    case diskFull(file: String)
    case corruptDatabase(file: String)
    case cannotOpen(file: String)

    /// The case name a probe prints for it (`error: <case> ...`, `ProbeOutput.fail`).
    var caseName: String {
        switch self {
        case .busyTimeout: "busyTimeout"
        case .readOnly: "readOnly"
        case .diskFull: "diskFull"
        case .corruptDatabase: "corruptDatabase"
        case .cannotOpen: "cannotOpen"
        }
    }

    var description: String {
        switch self {
        case .busyTimeout(let file, let seconds): "busyTimeout(\(file), \(seconds))"
        case .readOnly(let file), .diskFull(let file), .corruptDatabase(let file), .cannotOpen(let file): "\(caseName)(\(file))"
        }
    }
}

/// What opening a damaged store did.
struct Recovery {
    /// The rows the opened store holds.
    let rows: Int
    /// Where the damaged file went, if it was moved aside.
    let movedTo: String?
    /// The damage SQLite reported.
    let cause: String?
}

/// An open store of the suite.
protocol OpenSQLiteStore: AnyObject, Sendable {
    /// One transaction writing one row (a record of `bytes` characters) under `id`.
    func write(id: Int, bytes: Int) throws
    /// How many rows the suite's writes made (read in a snapshot of the last commit).
    func count() throws -> Int
    /// Yields once the store noticed a commit it did not make (started before this returns).
    func otherCommits() async throws -> AsyncStream<Void>
    /// Looks for other processes' commits now (the manual trigger: no waiting for a poll).
    func checkForOtherCommits()
}
