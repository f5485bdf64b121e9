import DocumentStore

/// What replication asks of a server: its identity, the server's copy of each replication's
/// checkpoints, sending a batch of revisions, reading its change feed page by page, and purging old
/// tombstones. ``Replication`` holds one and knows nothing else about the server.
///
/// Two implementations keep the same rules: ``PostgresReplicationServer`` (the product: one schema on a
/// PostgreSQL server, one connection) and ``InMemoryReplicationServer`` (the tests' twin, shared by any
/// number of replicas in one process). The rules every implementation keeps:
///
/// - **The feed.** Every document that gained a revision gets a new feed position, greater than every
///   position given before; the documents of one batch take consecutive positions in byte order of
///   their identifiers. A purged document's record takes a position from the same counter. A page is
///   read as of one moment: nothing committed later appears in it, and nothing before it is missing.
/// - **Idempotence.** Sending leaves the server already has changes nothing: no revision, no feed
///   position, no winner (a killed replicator sends its last batch again).
/// - **Atomicity.** A batch and the push checkpoint sent with it are kept together or not at all; a
///   tombstone purge removes documents, their trees and adds their purge records together.
/// - **Winners.** A document's winner is its leaf that is not deleted before one that is, then of the
///   highest generation, then of the greatest digest (byte order): `Revision.beats`, the replicas' rule.
/// - **Checkpoints.** Each replication (named by its identity) has one history per direction; a write
///   replaces it, a read of one never written is empty.
///
/// Concurrency: every requirement may be called from any task, and several replicas may use one
/// server at once (each operation is atomic with respect to the others).
package protocol ReplicationServer: Sendable {
    /// The server's identity, part of every replication's identity: another server (or a schema made
    /// again) is another replication, whose checkpoints start from zero.
    var serverIdentifier: String { get }

    /// The server's copy of a replication's checkpoint history in one direction (empty when it never
    /// wrote one).
    func checkpoint(_ direction: ReplicationDirection, of replication: String) async throws -> CheckpointHistory

    /// Replaces the server's copy of a replication's checkpoint history in one direction. With
    /// `waitForDisk` false the server may acknowledge before the write is durable (a crash then leaves
    /// an older entry, which the local history also holds).
    func setCheckpoint(_ history: CheckpointHistory, _ direction: ReplicationDirection, of replication: String,
                       waitForDisk: Bool) async throws

    /// Sends one batch of the local feed, atomically with the replication's push checkpoint: the server
    /// keeps the leaves it lacks (``MissingLeaves``, judged against its trees while no other batch or
    /// purge of these documents runs), with their ancestry, and the push `checkpoint` history.
    ///
    /// - Returns: the documents that gained a revision, and the leaves that were missing.
    func push(_ documents: [OutgoingDocument], checkpoint: CheckpointHistory, of replication: String,
              historyLimit: Int) async throws -> (documents: Int, revisions: Int)

    /// Inserts leaves as ``MissingLeaves`` chose them, in one transaction and without a checkpoint: the
    /// second half of ``push(_:checkpoint:of:historyLimit:)``. Leaves the server has already are skipped,
    /// so sending a batch twice changes nothing the second time.
    ///
    /// - Returns: how many documents gained a revision (each got a new feed position).
    func insert(_ leaves: MissingLeaves, historyLimit: Int) async throws -> Int

    /// The last feed position whose tombstones were purged: a pull checkpoint below it must start over.
    func purgeHorizon() async throws -> Int64

    /// The revisions the server's trees of `identifiers` hold now, each as its document's identifier,
    /// a zero character and the revision: what a pull checks a purged document's live leaves against.
    func revisions(of identifiers: [String]) async throws -> Set<String>

    /// Which of `identifiers` have a purge record: what a push checks when the server lost its copy of
    /// the push checkpoint, so it does not bring back a document the server deleted and purged.
    func purged(among identifiers: [String]) async throws -> Set<String>

    /// The leaves of the next `limit` documents of the feed after `position` (of the given kinds, or
    /// every kind for `nil`), with the purge records up to the last of them (or every later one when
    /// the page is not full), read as of one moment.
    func feedPage(after position: Int64, limit: Int, kinds: Set<String>?) async throws -> FeedPage

    /// Removes the documents whose winner is a deletion older than `retention` and that have no live
    /// leaf, with their trees; gives each a purge record in the feed, and moves the purge horizon to
    /// the last feed position they held.
    func purgeTombstones(olderThan retention: Duration) async throws

    /// With access control on, a value that changes whenever the caller's readable channels change;
    /// `nil` on a server without access control (every replica reads everything).
    func accessEpoch() async throws -> String?
}

extension ReplicationServer {
    /// No access control: every replica reads everything.
    package func accessEpoch() async throws -> String? { nil }
}
