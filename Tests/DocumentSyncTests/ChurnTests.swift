import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// Many replicas working at once: the standing test for the class of bug that only concurrency shows.
///
/// Four `sync-churn` processes (one of them a continuous replicator) edit twelve shared documents and
/// thirty private ones each, and push, pull and run at random moments, all at the same time, with a
/// resolver that merges while the app saves; the test SIGKILLs and restarts them at random moments and
/// crashes the server (`pg_ctl stop -m immediate`) now and then. After everything settles it checks:
/// - the server and every replica hold the same documents, leaves, winners and bodies;
/// - `documents` equals `winner()` on the server, and each replica's current revision is its tree's winner;
/// - every write a process reported committed is the winner or in the history of a leaf (unless the
///   tombstone purge removed its document, which must then have had no live leaf, or the write is older
///   than the history limit below the newest leaf, which a long campaign reaches);
/// - a deletion is never undone by an older revision (the winner is never an ancestor of a deletion);
/// - no feed lists a revision twice, and no replica process died on its own (a trap, a crash).
///
/// `ci/test` runs it for about 45 s with a history limit of 30 generations, so its hot documents pass
/// the limit within seconds; `ci/sync-campaign MINUTES` runs it as long as asked with the default
/// limit (`TOOLKIT_CHURN_SECONDS`; `TOOLKIT_CHURN_HISTORY` sets the limit, 0 for the default;
/// `TOOLKIT_CHURN_SEED` replays a seed's schedule of kills and edits).
@Suite("churn", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ChurnTests {
    @Test("four replica processes at once, killed, restarted and through server crashes: they converge and lose nothing committed")
    func churn() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = Int(environment["TOOLKIT_CHURN_SECONDS"] ?? "") ?? 45
        let seed = UInt64(environment["TOOLKIT_CHURN_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)
        let history = Int(environment["TOOLKIT_CHURN_HISTORY"] ?? "") ?? 30
        print("churn seed \(seed), \(seconds) s, history limit \(history == 0 ? "default" : String(history))")
        try await OwnCluster.with { cluster in
            let churn = try SyncChurn(cluster: cluster, seed: seed, historyLimit: history == 0 ? nil : history)
            try await churn.run(seconds: seconds)
            try await churn.settleAndCheck()
        }
    }
}

/// The churn's driver: its replicas, its schedule of faults, and the checks.
final class SyncChurn {
    let cluster: OwnCluster
    let fixture: SyncFixture
    let url: String
    let program: URL
    var random: SeededGenerator
    let replicaCount = 4
    private var children: [ChildProcess?]
    private var lifetimes = 0
    /// Every line every replica process printed, and how the ones that ended on their own ended.
    private var lines: [String] = []
    private var unexpectedEnds: [String] = []
    private(set) var kills = 0
    private(set) var serverCrashes = 0
    /// The revision history limit of every store and of the server (`nil`: the default).
    let historyLimit: Int?

    init(cluster: OwnCluster, seed: UInt64, historyLimit: Int? = nil) throws {
        self.cluster = cluster
        self.historyLimit = historyLimit
        fixture = try SyncFixture("churn", address: cluster.address)
        url = try String(contentsOfFile: cluster.folder + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        program = try ChildProcess.builtProgram("sync-churn")
        random = SeededGenerator(seed: seed)
        children = Array(repeating: nil, count: replicaCount)
    }

    /// The history limit in force.
    var limit: Int { historyLimit ?? PersistenceConfiguration(url: URL(fileURLWithPath: "/")).revisionHistoryLimit }

    /// Where a replica's leaves and the server's differ: per document, the leaves only one side holds,
    /// each side's newest leaf generation, and whether the replica's feed ever listed the server-only ones.
    static func leafDifferences(_ local: [String: [String]], _ server: [String: [String]], store: Persistence) throws -> String {
        var report: [String] = []
        for identifier in Set(local.keys).union(server.keys).sorted() where local[identifier] != server[identifier] {
            let mine = Set(local[identifier] ?? []), theirs = Set(server[identifier] ?? [])
            func newest(_ leaves: Set<String>) -> Int { leaves.compactMap { Revision.generation(of: String($0.split(separator: " ")[0])) }.max() ?? 0 }
            let listed = try theirs.subtracting(mine).map { leaf in
                let revision = String(leaf.split(separator: " ")[0])
                return "\(revision) listed before: \(try store.feedLists(identifier, revision))"
            }
            report.append("\(identifier): replica only \(mine.subtracting(theirs).sorted()), server only \(theirs.subtracting(mine).sorted()), "
                          + "newest replica \(newest(mine)) server \(newest(theirs)); \(listed.joined(separator: ", "))")
        }
        return report.prefix(6).joined(separator: "\n")
    }

    func storePath(_ index: Int) -> String { fixture.folder.file("replica\(index).sqlite").path }

    private func start(_ index: Int) throws {
        lifetimes += 1
        var environment = ProcessInfo.processInfo.environment
        environment["TOOLKIT_POSTGRES_URL"] = url
        environment["TOOLKIT_CHURN_HISTORY"] = historyLimit.map(String.init)
        let seed = random.next()
        var arguments = [storePath(index), fixture.schema, String(index), String(seed)]
        if index == replicaCount - 1 { arguments.append("continuous") }
        children[index] = try ChildProcess.start(program, arguments, environment: environment)
    }

    /// Reads what the replicas printed, and notes any that ended without being killed.
    private func collect() {
        for index in children.indices {
            guard let child = children[index] else { continue }
            child.poll()
            if let end = child.termination {
                unexpectedEnds.append("replica \(index) ended on its own (\(end)): \(Self.crashReport(child.standardError))")
                lines += child.outputLines
                children[index] = nil
                try? start(index)
            }
        }
    }

    /// What a crashed replica said: its fatal error lines and the crashed thread's backtrace (Swift's
    /// backtracer lists every thread; the one that crashed is what says why).
    static func crashReport(_ output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let fatal = lines.filter { $0.contains("Fatal error") || $0.contains("Program crashed") }
        let crashed = lines.firstIndex { $0.contains("crashed:") }.map { Array(lines[$0..<min(lines.count, $0 + 40)]) } ?? []
        let report = (fatal + crashed).joined(separator: "\n")
        return report.isEmpty ? String(output.suffix(2000)) : report
    }

    private func kill(_ index: Int) async throws {
        guard let child = children[index] else { return }
        child.kill(SIGKILL)
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        if end != .signaled(SIGKILL) {
            unexpectedEnds.append("replica \(index) ended on its own (\(end)) before the kill: \(Self.crashReport(child.standardError))")
        }
        lines += child.outputLines
        children[index] = nil
        kills += 1
    }

    /// The churn itself: replicas running at once, SIGKILLed and restarted at random moments, and a
    /// server crash about every 25 s.
    func run(seconds: Int) async throws {
        // The schema first, and an audit of every document the purge removes.
        try await fixture.sync(try fixture.store("creator", historyLimit: historyLimit)) { $0.revisionHistoryLimit = self.limit }.run()
        try await fixture.run("CREATE TABLE S.purge_audit (id text, deleted boolean, live_leaf boolean, at timestamptz DEFAULT clock_timestamp())")
        try await fixture.run("""
            CREATE FUNCTION S.audit_purge() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO S.purge_audit(id, deleted, live_leaf) VALUES (OLD.id, OLD.deleted,
                    EXISTS (SELECT 1 FROM S.revisions AS r WHERE r.document = OLD.id AND r.leaf AND NOT r.deleted));
                RETURN OLD;
            END $$
            """)
        try await fixture.run("CREATE TRIGGER audit_purge BEFORE DELETE ON S.documents FOR EACH ROW EXECUTE FUNCTION S.audit_purge()")
        for index in 0..<replicaCount { try start(index) }
        let end = ContinuousClock.now + .seconds(seconds)
        var nextCrash = ContinuousClock.now + .seconds(random.int(in: 15...30))
        var nextKill = ContinuousClock.now + .milliseconds(random.int(in: 300...3000))
        while ContinuousClock.now < end {
            collect()
            if ContinuousClock.now >= nextKill {
                let index = random.int(in: 0...(replicaCount - 1))
                try await kill(index)
                try start(index)
                nextKill = ContinuousClock.now + .milliseconds(random.int(in: 300...3000))
            }
            if ContinuousClock.now >= nextCrash {
                try await cluster.crash()
                serverCrashes += 1
                try await Task.sleep(for: .milliseconds(random.int(in: 100...2000)))
                try await cluster.restart()
                nextCrash = ContinuousClock.now + .seconds(random.int(in: 20...30))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        for index in 0..<replicaCount { try await kill(index) }
    }

    func settleAndCheck() async throws {
        let committed = lines.filter { $0.hasPrefix("committed ") }.map { $0.split(separator: " ").map(String.init) }
        let syncErrors = lines.filter { $0.hasPrefix("sync-error") || $0.hasPrefix("edit-error") || $0.hasPrefix("fatal") }
        let conflictsResolved = lines.filter { $0.contains("resolved") }.count
        // Settle: each replica in turn, with the same resolver and no purge, until a round changes nothing.
        let stores = try (0..<replicaCount).map { index in
            var configuration = PersistenceConfiguration(url: URL(fileURLWithPath: storePath(index)))
            configuration.revisionHistoryLimit = self.limit
            let store = try Persistence(configuration: configuration)
            store.register(persistableKind: Item.self)
            return store
        }
        var rounds = 0
        while true {
            rounds += 1
            var changed = false
            for store in stores {
                let report = try await fixture.sync(store) { configuration in
                    // Big batches: after a long campaign each feed holds many thousands of entries.
                    configuration.batchSize = 1000
                    configuration.revisionHistoryLimit = self.limit
                    configuration.tombstoneRetention = nil
                    configuration.conflictResolver = { .merge(BranchUnion.merge(current: $0.current, others: $0.others)) }
                }.run()
                if report.pushedRevisions + report.pulledRevisions + report.resolvedConflicts > 0 { changed = true }
            }
            if !changed || rounds == 12 { break }
        }
        print("""
            churn: \(lifetimes) replica lifetimes, \(kills) SIGKILLs, \(serverCrashes) server crashes, \(committed.count) writes reported committed, \
            \(conflictsResolved) synchronizations that resolved conflicts, settled in \(rounds) rounds
            """)
        #expect(rounds < 12, "the replicas did not settle")
        for end in unexpectedEnds { print("churn: \(end)") }
        #expect(unexpectedEnds.isEmpty, "\(unexpectedEnds.count) replica processes ended on their own (printed above)")
        #expect(syncErrors.isEmpty, "\(syncErrors.count) errors retrying cannot fix: \(syncErrors.prefix(5))")

        // The same documents, leaves, winners and bodies everywhere.
        let serverLeaves = try await fixture.serverLeaves()
        let server = try await fixture.sql("SELECT d.id, d.winner, d.deleted, coalesce(r.body, '') FROM S.documents AS d JOIN S.revisions AS r ON r.document = d.id AND r.revision = d.winner",
                                           as: (String, String, Bool, String).self)
        let serverWinners = Dictionary(uniqueKeysWithValues: server.map { ($0.0, $0.1 + ($0.2 ? " deleted" : "")) })
        let serverBodies = Dictionary(uniqueKeysWithValues: server.filter { !$0.2 }.map { ($0.0, $0.3) })
        #expect(try await fixture.winnerMismatches().isEmpty)
        for (index, store) in stores.enumerated() {
            let leaves = try store.allLeaves()
            let differences = leaves == serverLeaves ? "" : try Self.leafDifferences(leaves, serverLeaves, store: store)
            #expect(leaves == serverLeaves, "replica \(index)'s leaves differ from the server's: \(differences)")
            #expect(try store.winners() == serverWinners, "replica \(index)'s winners differ from the server's")
            #expect(try store.repeatedFeedEntries() == 0, "replica \(index) lists a revision twice in its feed")
            for (identifier, text) in serverBodies {
                let local = try store.snapshot(identifier)?.body
                #expect(local == (try JSON(parsing: text, identifier: identifier)), "replica \(index): \(identifier)'s body")
            }
            // Each replica's current revision is its own tree's winner by the shared rule.
            for identifier in serverLeaves.keys {
                let branches = try store.branches(of: identifier)
                let best = branches.max { Revision.beats(($1.revision, $1.deleted), ($0.revision, $0.deleted)) }
                #expect(branches.first(where: \.isCurrent)?.revision == best?.revision, "replica \(index): \(identifier)'s current revision is not its winner")
            }
        }

        // Nothing the purge removed had a live leaf; nothing committed is lost; no deletion is undone.
        let audit = try await fixture.sql("SELECT id, live_leaf FROM S.purge_audit", as: (String, Bool).self)
        #expect(audit.filter(\.1).isEmpty, "the purge removed documents with a live leaf: \(audit.filter(\.1).prefix(5))")
        let purged = Set(audit.map(\.0))
        let reference = stores[0]
        let depth = Int64(self.limit)
        /// Per document: its leaves' histories (newest first), the revisions in them, the newest leaf's generation.
        struct Tree { var histories: [[String]]; var revisions: Set<String>; var newest: Int64; var winner: RevisionBranch? }
        var trees: [String: Tree] = [:]
        func tree(_ identifier: String) throws -> Tree {
            if let known = trees[identifier] { return known }
            let leaves = try reference.branches(of: identifier)
            let histories = try leaves.map { try reference.history(of: identifier, revision: $0.revision) }
            let made = Tree(histories: histories, revisions: Set(histories.joined()),
                            newest: Int64(leaves.compactMap { Revision.generation(of: $0.revision) }.max() ?? 0),
                            winner: leaves.first(where: \.isCurrent))
            trees[identifier] = made
            return made
        }
        var lost: [String] = []
        var undone: [String] = []
        var pastHorizon = 0
        for write in committed where write.count == 4 && !purged.contains(write[1]) {
            let (identifier, revision, deleted) = (write[1], write[2], write[3] == "1")
            let known = try tree(identifier)
            guard known.revisions.contains(revision) else {
                // Older than the history limit below the newest leaf: pruned by design.
                if Int64(Revision.generation(of: revision) ?? 0) <= known.newest - depth { pastHorizon += 1 } else {
                    lost.append("\(identifier) \(revision)")
                }
                continue
            }
            // A live winner that is an ancestor of a committed deletion would be that deletion undone.
            if deleted, let winner = known.winner, !winner.deleted {
                for history in known.histories {
                    if let at = history.firstIndex(of: revision), history[(at + 1)...].contains(winner.revision) {
                        undone.append("\(identifier): deletion \(revision) undone by its ancestor \(winner.revision)")
                    }
                }
            }
        }
        print("""
            churn: \(committed.count) committed writes checked (\(purged.count) documents purged on the server, \(pastHorizon) writes \
            older than the \(depth)-generation history), \(lost.count) lost, \(undone.count) deletions undone
            """)
        #expect(lost.isEmpty, "committed writes in no replica's history: \(lost.prefix(5))")
        #expect(undone.isEmpty, "\(undone.prefix(5))")
        await fixture.dropSchema()
    }
}
