import DocumentStore
import Foundation
import PostgresNIO
import Synchronization

/// Replicates a `Persistence` through a PostgreSQL server: local changes go up (push), other replicas'
/// changes come down (pull). Every replica of the same server ends with the same documents and the
/// same winning revision of each, whatever order they synchronize in.
///
/// ```swift
/// let store = try Persistence(name: "shapes")
/// let sync = try DocumentSync(persistence: store, configuration: .init(address: try PostgresAddress(url: "postgres://me@db.example.com/shapes")))
/// let report = try await sync.run()          // once
/// for await status in sync.start() { ... }   // or continuously
/// ```
///
/// Concurrent edits of one document on two replicas become two branches of its revision tree on every
/// side; the winner is picked by the same rule everywhere (not deleted beats deleted, then the higher
/// generation, then the greater digest), and ``Configuration/conflictResolver`` may merge them.
public final class DocumentSync: Sendable {
    /// What a conflict resolver sees: a document with more than one live branch.
    public struct Conflict: Sendable {
        public let identifier: String
        public let kind: String
        /// The winning branch's body.
        public let current: JSON
        /// The other live branches' bodies.
        public let others: [JSON]
    }

    /// What to do with a conflict.
    public enum Resolution: Sendable {
        /// Leave the branches (the winner stays the document's value; the others stay in the tree).
        case keepBranches
        /// Keep the winner and delete the other branches.
        case keepCurrent
        /// Write `JSON` as a new revision on the winner and delete the other branches.
        case merge(JSON)
        /// Delete the document (every branch).
        case delete
    }

    /// How a replicator connects and what it replicates.
    public struct Configuration: Sendable {
        /// The server.
        public var address: PostgresAddress
        /// The server schema that holds the replicated documents (created when missing if ``createSchema``).
        public var schema: String = "document_sync"
        /// The kinds to replicate, or `nil` for every kind. Part of the replication's identity.
        public var kinds: Set<String>?
        /// Documents per push or pull batch (each one server transaction and one local transaction); a
        /// killed replicator replays at most one batch.
        public var batchSize: Int = 1000
        /// Whether this replicator may create the server schema (otherwise a DBA runs ``DocumentSync/schemaScript(schema:)``).
        public var createSchema: Bool = true
        /// How long deleted documents stay on the server; a replica that has not pulled for longer
        /// synchronizes fully. `nil` keeps them forever.
        public var tombstoneRetention: Duration? = .seconds(30 * 24 * 3600)
        /// Generations of each document's revision tree the server keeps below its newest leaf (1,000,
        /// CouchDB's `revs_limit`). A leaf further behind is superseded, never kept as a conflict; give
        /// the replicas' `PersistenceConfiguration.revisionHistoryLimit` the same value.
        public var revisionHistoryLimit: Int = 1000
        /// How long connecting and logging in may take.
        public var connectTimeout: Duration = .seconds(30)
        /// How long one statement may go without an answer before the connection counts as broken
        /// (a network that drops packets without closing the connection); it is then closed and the
        /// sync fails with `.serverUnavailable` (retried by a continuous replicator).
        public var statementTimeout: Duration = .seconds(60)
        /// Continuous mode: how often to look for local changes, and the longest wait between two pulls
        /// when no notification arrives (notifications only make pulls sooner).
        public var pollInterval: Duration = .milliseconds(200)
        public var maximumInterval: Duration = .seconds(10)
        /// Continuous mode: the first and the longest wait before retrying after a failure.
        public var initialBackoff: Duration = .milliseconds(250)
        public var maximumBackoff: Duration = .seconds(30)
        /// Called after a pull for each document with more than one live branch.
        public var conflictResolver: (@Sendable (Conflict) -> Resolution)?

        public init(address: PostgresAddress, schema: String = "document_sync", kinds: Set<String>? = nil) {
            self.address = address
            self.schema = schema
            self.kinds = kinds
        }
    }

    /// What one synchronization did.
    public struct Report: Sendable, Equatable, CustomStringConvertible {
        /// Documents sent, and revisions the server did not have among them.
        public var pushedDocuments = 0
        public var pushedRevisions = 0
        /// Revisions received that this store did not have.
        public var pulledRevisions = 0
        /// Conflicts the resolver ended.
        public var resolvedConflicts = 0
        /// Whether the pull started over because the server had purged tombstones past this replica's checkpoint.
        public var fullResync = false
        /// Local documents removed because the server purged them: named by the server's purge records
        /// as the pull passed them, or absent from the server in a full resynchronization. A document
        /// with a live leaf or a change not pushed yet is never removed.
        public var purgedLocally = 0

        public var description: String {
            "pushed \(pushedRevisions) revisions of \(pushedDocuments) documents, pulled \(pulledRevisions) revisions"
                + (resolvedConflicts > 0 ? ", resolved \(resolvedConflicts) conflicts" : "")
                + (fullResync ? ", full resynchronization (\(purgedLocally) purged locally)"
                    : purgedLocally > 0 ? ", \(purgedLocally) purged locally" : "")
        }
    }

    public let persistence: Persistence
    public let configuration: Configuration
    let continuous = Mutex(ContinuousState())
    /// The server every synchronization uses, when one was given (``init(persistence:configuration:server:)``);
    /// `nil` opens a connection to ``Configuration/address`` for each.
    let givenServer: (any ReplicationServer)?

    /// A replicator for `persistence`; nothing connects until ``run()`` or ``start()``.
    public init(persistence: Persistence, configuration: Configuration) throws(DocumentSyncError) {
        guard ServerSchema.isValidName(configuration.schema) else { throw .invalidSchemaName(configuration.schema) }
        self.persistence = persistence
        self.configuration = configuration
        self.givenServer = nil
    }

    /// A replicator for `persistence` that synchronizes with `server` instead of the PostgreSQL server at
    /// ``Configuration/address`` (which it never connects to): the package's tests run replication
    /// against an ``InMemoryReplicationServer`` this way. Everything else in `configuration` applies as
    /// usual, and the schema name still names the replication. A continuous replicator on such a server
    /// hears of other replicas' pushes only by pulling (at least every ``Configuration/maximumInterval``):
    /// notifications are PostgreSQL's.
    package init(persistence: Persistence, configuration: Configuration, server: any ReplicationServer) throws(DocumentSyncError) {
        guard ServerSchema.isValidName(configuration.schema) else { throw .invalidSchemaName(configuration.schema) }
        self.persistence = persistence
        self.configuration = configuration
        self.givenServer = server
    }

    /// The SQL that creates the server schema, for a DBA to review and run (then set `createSchema` to false).
    public static func schemaScript(schema: String = "document_sync") throws(DocumentSyncError) -> String {
        guard ServerSchema.isValidName(schema) else { throw .invalidSchemaName(schema) }
        return ServerSchema.script(schema: schema)
    }

    /// Synchronizes once: pushes every local change, pulls every server change, resolves conflicts.
    @discardableResult
    public func run() async throws(DocumentSyncError) -> Report {
        try await withServer { server in try await run(try Replication.prepare(self, server), status: nil) }
    }

    /// Only sends the local changes (no pull): for a replica that writes and never reads others' changes,
    /// and to measure each direction alone.
    @discardableResult
    public func push() async throws(DocumentSyncError) -> Report {
        try await withServer { server in
            let replication = try Replication.prepare(self, server)
            var report = Report()
            try await replication.push(&report)
            return report
        }
    }

    /// Only receives the server's changes (no push), resolving conflicts when a resolver is set.
    @discardableResult
    public func pull() async throws(DocumentSyncError) -> Report {
        try await withServer { server in
            let replication = try Replication.prepare(self, server)
            var report = Report()
            try await replication.pull(&report)
            return report
        }
    }

    /// Opens a connection, named `document_sync:<schema>` in `pg_stat_activity`.
    func openSession() async throws(DocumentSyncError) -> ServerSession {
        try await ServerSession.open(configuration.address, connectTimeout: configuration.connectTimeout,
                                     statementTimeout: configuration.statementTimeout,
                                     applicationName: "document_sync:" + configuration.schema)
    }

    /// The PostgreSQL server on `session`, its schema made ready as ``Configuration/createSchema`` allows.
    func server(on session: ServerSession) async throws -> PostgresReplicationServer {
        try await PostgresReplicationServer.prepare(session, schema: configuration.schema, create: configuration.createSchema)
    }

    /// Runs `body` with the given server, or with the PostgreSQL server on a connection of its own,
    /// closed afterwards.
    private func withServer(_ body: (any ReplicationServer) async throws -> Report) async throws(DocumentSyncError) -> Report {
        if let givenServer {
            do {
                return try await body(givenServer)
            } catch {
                throw DocumentSyncError.classify(error, address: configuration.address)
            }
        }
        let session = try await openSession()
        do {
            let report = try await body(try await server(on: session))
            await session.close()
            return report
        } catch {
            await session.close()
            throw DocumentSyncError.classify(error, address: configuration.address)
        }
    }

    /// One push and one pull of a prepared replication (a second push sends the merges of resolved conflicts).
    func run(_ replication: Replication, status: (@Sendable (SyncStatus) -> Void)?) async throws -> Report {
        var report = Report()
        status?(.pushing)
        try await replication.push(&report)
        status?(.pulling)
        try await replication.pull(&report)
        if report.resolvedConflicts > 0 { try await replication.push(&report) }
        try await replication.purgeServerTombstones()
        return report
    }
}
