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
    ///
    /// A replicator hands one to ``Configuration/conflictResolver`` after each pull, for every
    /// document whose revision tree has more than one branch that is not deleted, and applies the
    /// ``Resolution`` it returns:
    ///
    /// ```swift
    /// var configuration = DocumentSync.Configuration(address: address)
    /// configuration.conflictResolver = { conflict in
    ///     conflict.kind == "Note" ? .keepCurrent : .keepBranches
    /// }
    /// ```
    public struct Conflict: Sendable {
        /// The document's identifier.
        public let identifier: String
        /// The document's kind, as registered with the store (`Circle`, `Note`).
        public let kind: String
        /// The winning branch's body.
        public let current: JSON
        /// The other live branches' bodies.
        public let others: [JSON]
    }

    /// What to do with a conflict, as ``Configuration/conflictResolver`` returns it.
    ///
    /// Every resolution but ``keepBranches`` writes to the local store; the next push sends the
    /// deletions and the merge up (``DocumentSync/run()`` pushes again at once), so the other replicas
    /// see the conflict end too:
    ///
    /// ```swift
    /// configuration.conflictResolver = { _ in .merge(["tag": "merged"]) }
    /// ```
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
    ///
    /// Only the address is required; every other setting has a default that suits an app replicating
    /// all its kinds:
    ///
    /// ```swift
    /// let address = try PostgresAddress(url: "postgres://app@db.example.com/shapes")
    /// var configuration = DocumentSync.Configuration(address: address, kinds: ["Circle", "Square"])
    /// configuration.createSchema = false          // a DBA ran DocumentSync.schemaScript()
    /// configuration.pollInterval = .seconds(1)
    /// let sync = try DocumentSync(persistence: store, configuration: configuration)
    /// ```
    ///
    /// The schema and the kinds are part of the replication's identity (with the replica and the
    /// server): change either and the replicator finds no checkpoint of its own, so its next run pushes
    /// and pulls everything.
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
        /// Continuous mode: how often to look for local changes not pushed yet (200 ms).
        public var pollInterval: Duration = .milliseconds(200)
        /// Continuous mode: the longest wait between two pulls when no notification arrives (10 s).
        ///
        /// Notifications (`LISTEN`) only make pulls sooner; correctness never depends on them, so
        /// this bounds how late another replica's push is seen when one is lost.
        public var maximumInterval: Duration = .seconds(10)
        /// Continuous mode: the first wait before retrying after a failure (250 ms); each failure in a
        /// row doubles it, up to ``maximumBackoff``.
        public var initialBackoff: Duration = .milliseconds(250)
        /// Continuous mode: the longest wait before retrying after a failure (30 s).
        public var maximumBackoff: Duration = .seconds(30)
        /// Called after a pull for each document with more than one live branch.
        public var conflictResolver: (@Sendable (Conflict) -> Resolution)?

        /// A configuration with every setting at its default but the server, the schema and the kinds.
        ///
        /// The schema name is checked when the replicator is made
        /// (``DocumentSync/init(persistence:configuration:)``), not here.
        ///
        /// - Parameters:
        ///   - address: The PostgreSQL server and the user to log in as.
        ///   - schema: The server schema that holds the replicated documents; letters, digits and `_`.
        ///   - kinds: The kinds to replicate, or `nil` for every kind.
        public init(address: PostgresAddress, schema: String = "document_sync", kinds: Set<String>? = nil) {
            self.address = address
            self.schema = schema
            self.kinds = kinds
        }
    }

    /// What one synchronization did.
    public struct Report: Sendable, Equatable, CustomStringConvertible {
        /// Documents that gained a revision on the server. A document sent that the server had
        /// already (a batch replayed, or a replication starting from zero) is not counted.
        public var pushedDocuments = 0
        /// Revisions sent that the server did not have yet.
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

    /// The local store this replicator pushes from and pulls into.
    public let persistence: Persistence
    /// The server, schema, kinds and timings this replicator was made with.
    public let configuration: Configuration
    let continuous = Mutex(ContinuousState())
    /// The server every synchronization uses, when one was given (``init(persistence:configuration:server:)``);
    /// `nil` opens a connection to ``Configuration/address`` for each.
    let givenServer: (any ReplicationServer)?

    /// A replicator for `persistence`; nothing connects until ``run()`` or ``start()``.
    ///
    /// ```swift
    /// let store = try Persistence(name: "shapes")
    /// let sync = try DocumentSync(persistence: store, configuration: .init(address: PostgresAddress(user: "app")))
    /// ```
    ///
    /// - Parameters:
    ///   - persistence: The local store to replicate.
    ///   - configuration: The server and what to replicate.
    /// - Throws: ``DocumentSyncError/invalidSchemaName(_:)`` when `configuration.schema` is not a plain
    ///   identifier.
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
    ///
    /// ```swift
    /// print(try DocumentSync.schemaScript(schema: "shapes_sync"))   // pipe it to psql
    /// ```
    ///
    /// - Parameter schema: The schema to create; the same name as ``Configuration/schema``.
    /// - Returns: The script, in one transaction (`BEGIN` to `COMMIT`); run it in a UTF-8 database.
    /// - Throws: ``DocumentSyncError/invalidSchemaName(_:)`` when `schema` is not a plain identifier.
    public static func schemaScript(schema: String = "document_sync") throws(DocumentSyncError) -> String {
        guard ServerSchema.isValidName(schema) else { throw .invalidSchemaName(schema) }
        return ServerSchema.script(schema: schema)
    }

    /// The SQL that lets a new login role, `user`, replicate through `schema`: for a DBA to review and
    /// run after ``schemaScript(schema:)``, as the schema's owner or a superuser.
    ///
    /// ```swift
    /// print(try DocumentSync.userScript(user: "alice", schema: "shapes_sync"))   // pipe it to psql
    /// ```
    ///
    /// It makes the group role `<schema>_replica` once (granted what a replicator uses) and `user` as
    /// a login role in it, without a password. Each device or person gets a role of its own: give it a
    /// password with psql's `\password alice` (psql sends a SCRAM-SHA-256 verifier, never the password)
    /// and hand it over as `PGPASSWORD` or a `.pgpass` line, or let it in by client certificate
    /// (``PostgresAddress/clientCertificatePath``; see <doc:UsersAndConnections>). Replicators of such
    /// roles run with ``Configuration/createSchema`` off.
    ///
    /// - Parameters:
    ///   - user: The login role to create; a plain identifier (lowercase letters, digits, `_`).
    ///   - schema: The replication schema; the same name as ``Configuration/schema``.
    /// - Returns: The script; the role creation is in one transaction (`BEGIN` to `COMMIT`).
    /// - Throws: ``DocumentSyncError/invalidSchemaName(_:)`` or ``DocumentSyncError/invalidRoleName(_:)``
    ///   when `schema` or `user` is not a plain identifier.
    public static func userScript(user: String, schema: String = "document_sync") throws(DocumentSyncError) -> String {
        guard ServerSchema.isValidName(schema) else { throw .invalidSchemaName(schema) }
        guard ServerSchema.isValidName(user) else { throw .invalidRoleName(user) }
        return ServerSchema.userScript(user: user, schema: schema)
    }

    /// The SQL that turns access control on for `schema`: channels computed from each document's body,
    /// grants of channels to roles, and functions through which replicas read and write, so that each
    /// replica sees and changes only what its login role may. For a DBA to review and run after
    /// ``schemaScript(schema:)``, as the schema's owner or a superuser; see
    /// <doc:UsersChannelsAndPermissions>.
    ///
    /// ```swift
    /// print(try DocumentSync.accessScript(schema: "shapes_sync", channelFields: ["owner", "channels"]))
    /// ```
    ///
    /// Then grant channels with SQL (`INSERT INTO shapes_sync.channel_grants(role, channel, writable)
    /// VALUES ('alice', 'alice', true)`), and make each replica's role with ``userScript(user:schema:)``.
    ///
    /// - Parameters:
    ///   - schema: The replication schema; the same name as ``Configuration/schema``.
    ///   - channelFields: The top-level body fields whose string, or array of strings, are a document's
    ///     channels; plain identifiers. A document whose body has none is in no channel: only a role
    ///     granted channel `*` reads or writes it.
    ///   - bodyLimit: The largest body the server accepts, in bytes of UTF-8 (1 MiB by default).
    /// - Returns: The script, in one transaction (`BEGIN` to `COMMIT`); it can run again.
    /// - Throws: ``DocumentSyncError/invalidSchemaName(_:)`` when `schema` or a field is not a plain
    ///   identifier, or there is no field.
    public static func accessScript(schema: String = "document_sync", channelFields: [String] = ["owner", "channels"],
                                    bodyLimit: Int = 1 << 20) throws(DocumentSyncError) -> String {
        guard ServerSchema.isValidName(schema) else { throw .invalidSchemaName(schema) }
        for field in channelFields where !ServerSchema.isValidName(field) { throw .invalidSchemaName(field) }
        guard !channelFields.isEmpty else { throw .invalidSchemaName("") }
        return ServerAccess.script(schema: schema, channelFields: channelFields, bodyLimit: max(2, bodyLimit))
    }

    /// Synchronizes once: pushes every local change, pulls every server change, resolves conflicts.
    ///
    /// ```swift
    /// let report = try await sync.run()
    /// print(report)   // "pushed 3 revisions of 3 documents, pulled 12 revisions"
    /// ```
    ///
    /// It connects, pushes from the push checkpoint, pulls from the pull checkpoint, pushes again when
    /// the resolver merged conflicts, purges the server's expired tombstones, and closes the
    /// connection. A run that fails or is cancelled part way keeps every batch it finished: the next
    /// run resumes after it.
    ///
    /// - Returns: What was pushed, pulled, resolved and purged.
    /// - Throws:
    ///   ``DocumentSyncError/serverUnavailable(address:cause:)`` (the server is down or the connection
    ///   broke), ``DocumentSyncError/authenticationFailed(address:user:cause:)``,
    ///   ``DocumentSyncError/serverSchemaMissing(schema:)`` (with ``Configuration/createSchema`` off),
    ///   ``DocumentSyncError/serverSchemaNewer(schema:found:supported:)``,
    ///   ``DocumentSyncError/serverEncoding(database:found:)``,
    ///   ``DocumentSyncError/server(sqlState:message:)`` (a statement failed),
    ///   ``DocumentSyncError/invalidRevision(identifier:revision:reason:)`` (a pulled revision does not
    ///   match its digest),
    ///   ``DocumentSyncError/local(_:)`` (the local store failed) and ``DocumentSyncError/cancelled``
    ///   (the task was cancelled). ``DocumentSyncError/isTransient`` says which are worth retrying.
    @discardableResult
    public func run() async throws(DocumentSyncError) -> Report {
        try await withServer { server in try await run(try Replication.prepare(self, server), status: nil) }
    }

    /// Only sends the local changes (no pull): for a replica that writes and never reads others' changes,
    /// and to measure each direction alone.
    ///
    /// - Returns: What was pushed (the pull counts stay zero).
    /// - Throws:
    ///   ``DocumentSyncError/serverUnavailable(address:cause:)`` (the server is down or the connection
    ///   broke), ``DocumentSyncError/authenticationFailed(address:user:cause:)``,
    ///   ``DocumentSyncError/serverSchemaMissing(schema:)`` (with ``Configuration/createSchema`` off),
    ///   ``DocumentSyncError/serverSchemaNewer(schema:found:supported:)``,
    ///   ``DocumentSyncError/serverEncoding(database:found:)``,
    ///   ``DocumentSyncError/server(sqlState:message:)`` (a statement failed),
    ///   ``DocumentSyncError/local(_:)`` (the local store failed) and ``DocumentSyncError/cancelled``
    ///   (the task was cancelled). ``DocumentSyncError/isTransient`` says which are worth retrying.
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
    ///
    /// A merge the resolver returns is saved locally and goes up with the next push.
    ///
    /// - Returns: What was pulled, resolved and purged locally (the push counts stay zero).
    /// - Throws:
    ///   ``DocumentSyncError/serverUnavailable(address:cause:)`` (the server is down or the connection
    ///   broke), ``DocumentSyncError/authenticationFailed(address:user:cause:)``,
    ///   ``DocumentSyncError/serverSchemaMissing(schema:)`` (with ``Configuration/createSchema`` off),
    ///   ``DocumentSyncError/serverSchemaNewer(schema:found:supported:)``,
    ///   ``DocumentSyncError/serverEncoding(database:found:)``,
    ///   ``DocumentSyncError/server(sqlState:message:)`` (a statement failed),
    ///   ``DocumentSyncError/invalidRevision(identifier:revision:reason:)`` (a pulled revision does not
    ///   match its digest),
    ///   ``DocumentSyncError/local(_:)`` (the local store failed) and ``DocumentSyncError/cancelled``
    ///   (the task was cancelled). ``DocumentSyncError/isTransient`` says which are worth retrying.
    @discardableResult
    public func pull() async throws(DocumentSyncError) -> Report {
        try await withServer { server in
            let replication = try Replication.prepare(self, server)
            var report = Report()
            try await replication.pull(&report)
            return report
        }
    }

    /// Gives up this replica's copies of `identifiers`, with their changes not pushed yet, and pulls the
    /// server's versions back: the way out after the server refused a push
    /// (``DocumentSyncError/refused(document:rule:)``) of a document this replica may not write, or no
    /// longer reads. Documents this replica may not read do not come back.
    ///
    /// ```swift
    /// do {
    ///     try await sync.run()
    /// } catch .refused(let document?, let rule) {
    ///     print("not allowed: \(rule)")
    ///     try await sync.discardLocalChanges(of: [document])
    /// }
    /// ```
    ///
    /// - Returns: What the pull did (it starts over from the beginning of the feed).
    /// - Throws: What ``pull()`` throws; the copies are removed before the pull, and a pull that fails is
    ///   started over again by the next one, so they come back then.
    public func discardLocalChanges(of identifiers: [String]) async throws(DocumentSyncError) -> Report {
        try await withServer { server in
            let replication = try Replication.prepare(self, server)
            try replication.discard(identifiers)
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
    package func server(on session: ServerSession) async throws -> PostgresReplicationServer {
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
