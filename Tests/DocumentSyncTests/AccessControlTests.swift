// Access control (issue 47 items 2, 3 and 5): channels computed by the server from each body, grants of
// channels to roles, and replicas that read and write only through the schema's functions. The
// invariant: a replica sees exactly the documents of its readable channels, and nothing it sends
// outside its writable channels, or malformed, or forged, changes any row of the server.
import DocumentStore
import DocumentSync
import Foundation
import Testing
import TestSupport

/// A schema with access control, and three login roles: alice (channels `alice`, `team` and `shared`,
/// all writable), bob (`bob` and `shared` writable, `team` read-only) and an administrator (`*`).
final class AccessFixture: Sendable {
    let base: DocPromiseFixture
    let alice: String, bob: String, admin: String
    let aliceAddress: PostgresAddress, bobAddress: PostgresAddress, adminAddress: PostgresAddress

    private init(_ base: DocPromiseFixture, suffix: String) throws {
        self.base = base
        alice = "alice_\(suffix)"
        bob = "bob_\(suffix)"
        admin = "admin_\(suffix)"
        func address(_ user: String) -> PostgresAddress {
            var address = base.address
            address.user = user
            address.password = "pw-\(user)"
            return address
        }
        aliceAddress = address(alice)
        bobAddress = address(bob)
        adminAddress = address(admin)
    }

    var roles: [String] { [alice, bob, admin] }

    /// Runs `body` with a fresh schema, access control on (`bodyLimit` bytes), and the three roles.
    static func with(_ name: String, bodyLimit: Int = 1 << 20, _ body: (AccessFixture) async throws -> Void) async throws {
        try await DocPromiseFixture.with(name) { base in
            let f = try AccessFixture(base, suffix: BB47.suffix())
            do {
                try await BB47.psql(try DocumentSync.schemaScript(schema: base.schema), address: base.address, in: base.folder)
                try await BB47.psql(try DocumentSync.accessScript(schema: base.schema, bodyLimit: bodyLimit),
                                    address: base.address, in: base.folder)
                for role in f.roles {
                    try await BB47.psql(try DocumentSync.userScript(user: role, schema: base.schema), address: base.address, in: base.folder)
                    _ = try await base.sql("ALTER ROLE \"\(role)\" PASSWORD 'pw-\(role)'")
                }
                _ = try await base.sql("""
                    INSERT INTO S.channel_grants(role, channel, writable) VALUES
                        ('\(f.alice)', 'alice', true), ('\(f.alice)', 'team', true),
                        ('\(f.alice)', 'shared', true), ('\(f.bob)', 'shared', true),
                        ('\(f.bob)', 'bob', true), ('\(f.bob)', 'team', false), ('\(f.admin)', '*', true)
                    """)
                try await body(f)
            } catch {
                await BB47.dropRoles(f.roles + ["\(base.schema)_replica"], base)
                throw error
            }
            await BB47.dropRoles(f.roles + ["\(base.schema)_replica"], base)
        }
    }

    func sync(_ store: Persistence, as address: PostgresAddress,
              _ change: (inout DocumentSync.Configuration) -> Void = { _ in }) throws -> DocumentSync {
        try base.sync(store) {
            $0.address = address
            $0.createSchema = false
            change(&$0)
        }
    }

    /// The SQL state a statement run as `address` fails with (`nil` when it succeeds).
    func failure(_ statement: String, as address: PostgresAddress) async -> String? {
        do {
            _ = try await DocPromiseFixture.sql(statement.replacingOccurrences(of: "S.", with: "\"\(base.schema)\"."), address: address)
            return nil
        } catch {
            let text = "\(error)"
            for state in ["42501", ServerAccess.refusalState, "42883", "22P02", "22023", "54000"] where text.contains(state) { return state }
            return "other: \(text.prefix(300))"
        }
    }

    /// One text that changes when any row of the schema changes (every table, in a fixed order).
    func fingerprint() async throws -> String {
        var parts: [String] = []
        for table in ["meta", "feed", "documents", "revisions", "checkpoints", "purges", "channel_grants"] {
            parts.append(try await base.value("SELECT '\(table):' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM S.\(table) AS t") ?? "")
        }
        return parts.joined(separator: "\n")
    }
}

@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct AccessControlTests {
    @Test func eachReplicaPullsItsReadableChannelsAndPushesOnlyItsWritableOnes() async throws {
        try await AccessFixture.with("access") { f in
            let a = try f.base.store("alice"), b = try f.base.store("bob"), admin = try f.base.store("admin")
            try a.docPut("a-private", ["owner": "alice", "text": "alice's"])
            try a.docPut("a-team", ["channels": ["team"], "text": "for the team"])
            try b.docPut("b-private", ["owner": "bob"])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            #expect(try a.docBody("b-private") == nil, "alice reads bob's channel")
            #expect(try b.docBody("a-private") == nil, "bob reads alice's channel")
            #expect(try b.docBody("a-team") == ["channels": ["team"], "text": "for the team"], "bob does not read the team channel")
            #expect(try await f.base.value("SELECT array_to_string(channels, ',') FROM S.documents WHERE id = 'a-team'") == "team")

            // Bob may read the team channel but not write it: his edit is refused, whole, and his
            // store keeps it for a later push.
            try b.docPut("a-team", ["channels": ["team"], "text": "bob was here"])
            let before = try await f.fingerprint()
            let refused = await BB47.outcome { try await f.sync(b, as: f.bobAddress).dpRun() }
            guard case .failure(let error) = refused, case .refused(let document, let rule)? = error as? DocumentSyncError else {
                Issue.record("bob's edit of a read-only channel was not refused: \(refused)")
                return
            }
            #expect(document == "a-team", "\(rule)")
            #expect(rule.contains("team"), "\(rule)")
            #expect(try await f.fingerprint() == before, "a refused push changed the server")
            #expect(try b.docBody("a-team") == ["channels": ["team"], "text": "bob was here"], "the local edit was dropped")
            // The way out: bob gives up his change, gets the server's version back, and pushes again.
            let discarded = try await f.sync(b, as: f.bobAddress).discardLocalChanges(of: ["a-team"])
            #expect(try b.docBody("a-team") == ["channels": ["team"], "text": "for the team"], "\(discarded)")
            try b.docPut("b-after", ["owner": "bob"])
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try await f.base.value("SELECT count(*)::text FROM S.documents WHERE id = 'b-after'") == "1")

            // Moving his own document into alice's channel, making one in no channel, and deleting a
            // team document are refused the same way (each from a store of its own: a refused
            // document stops its store's pushes until it is changed back).
            let cases: [(String, (Persistence) throws -> Void)] = [
                ("b-private", { try $0.docPut("b-private", ["owner": "alice"]) }),
                ("b-nowhere", { try $0.docPut("b-nowhere", ["text": "no owner"]) }),
                ("a-team", { try $0.docRemove("a-team") }),
            ]
            for (index, (id, change)) in cases.enumerated() {
                let store = try f.base.store("bob-\(index)")
                _ = try await f.sync(store, as: f.bobAddress).dpRun()
                try change(store)
                let before = try await f.fingerprint()
                let outcome = await BB47.outcome { try await f.sync(store, as: f.bobAddress).dpRun() }
                guard case .failure(let error) = outcome, case .refused(let document, _)? = error as? DocumentSyncError else {
                    Issue.record("\(id): not refused: \(outcome)")
                    continue
                }
                #expect(document == id, "\(error)")
                #expect(try await f.fingerprint() == before, "\(id): a refused push changed the server")
            }
            _ = admin
        }
    }

    @Test func channelsReachOnlyTheirReadersAndAdministratorsSeeEverything() async throws {
        try await AccessFixture.with("access") { f in
            let a = try f.base.store("alice"), b = try f.base.store("bob"), admin = try f.base.store("admin")
            try a.docPut("a1", ["owner": "alice"])
            try a.docPut("t1", ["channels": ["team", "alice"]])
            try b.docPut("b1", ["owner": "bob"])
            try admin.docPut("nowhere", ["text": "in no channel"])
            try admin.docPut("x1", ["owner": "carol"])
            for (store, address) in [(a, f.aliceAddress), (b, f.bobAddress), (admin, f.adminAddress), (a, f.aliceAddress), (b, f.bobAddress)] {
                _ = try await f.sync(store, as: address).dpRun()
            }
            func ids(_ store: Persistence) throws -> Set<String> { Set(try store.allLeaves().keys) }
            #expect(try ids(a) == ["a1", "t1"])
            #expect(try ids(b) == ["b1", "t1"])
            #expect(try ids(admin) == ["a1", "t1", "b1", "nowhere", "x1"])
            // Alice moves t1 out of the team: it is hers alone now, and changes keep flowing to her.
            try a.docPut("t1", ["channels": ["alice"], "v": 2])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            _ = try await f.sync(admin, as: f.adminAddress).dpRun()
            #expect(try admin.docBody("t1") == ["channels": ["alice"], "v": 2])
            #expect(try await f.base.value("SELECT array_to_string(channels, ',') FROM S.documents WHERE id = 't1'") == "alice")
            // Deleting keeps the document in its channels, so its readers see the deletion.
            try a.docRemove("a1")
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            #expect(try await f.base.value("SELECT array_to_string(channels, ',') || ' ' || deleted::text FROM S.documents WHERE id = 'a1'") == "alice true")
            _ = try await f.sync(admin, as: f.adminAddress).dpRun()
            #expect(try admin.docBody("a1") == nil)
        }
    }

    /// Issue 47 item 4: a document whose body takes it out of a reader's channels leaves that reader's
    /// store at its next pull, unless the reader changed it and has not pushed: that copy stays, and its
    /// push is refused, named.
    @Test func aDocumentThatLeavesAReadersChannelsLeavesItsStore() async throws {
        try await AccessFixture.with("access") { f in
            let a = try f.base.store("alice"), b = try f.base.store("bob")
            try a.docPut("t1", ["channels": ["team"], "v": 1])
            try a.docPut("s1", ["channels": ["shared"], "v": 1])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try b.docBody("t1") != nil && b.docBody("s1") != nil)
            // Bob changes s1 and does not push; alice moves both documents into her own channel.
            try b.docPut("s1", ["channels": ["shared"], "v": 2, "by": "bob"])
            try a.docPut("t1", ["channels": ["alice"], "v": 2])
            try a.docPut("s1", ["channels": ["alice"], "v": 2])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            let pulled = try await f.sync(b, as: f.bobAddress).dpPull()
            #expect(try b.docBody("t1") == nil, "t1 left bob's channels and stayed in his store: \(pulled)")
            #expect(try b.branches(of: "t1").isEmpty)
            #expect(try b.docBody("s1") == ["channels": ["shared"], "v": 2, "by": "bob"], "bob's unpushed change was dropped")
            let pushed = await BB47.outcome { try await f.sync(b, as: f.bobAddress).dpPush() }
            guard case .failure(let error) = pushed, case .refused(let document, _)? = error as? DocumentSyncError else {
                Issue.record("bob's change to a document he can no longer write was not refused: \(pushed)")
                return
            }
            #expect(document == "s1")
            #expect(try await f.base.value("SELECT array_to_string(channels, ',') FROM S.documents WHERE id = 's1'") == "alice")
            // Discarding it removes it for good: bob may not read it any more.
            _ = try await f.sync(b, as: f.bobAddress).discardLocalChanges(of: ["s1"])
            #expect(try b.branches(of: "s1").isEmpty)
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            // Back in a channel bob reads, the document comes back to him.
            try a.docPut("t1", ["channels": ["team"], "v": 3])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            _ = try await f.sync(b, as: f.bobAddress).dpPull()
            #expect(try b.docBody("t1") == ["channels": ["team"], "v": 3])
        }
    }

    /// Issue 47 item 4: a grant reaches a replica at its next run, older documents included; a revoked
    /// one takes the channel's documents out of its store.
    @Test func aNewGrantBringsOlderDocumentsAndARevokedOneRemovesThem() async throws {
        try await AccessFixture.with("access") { f in
            let a = try f.base.store("alice"), b = try f.base.store("bob")
            try a.docPut("a-old", ["owner": "alice"])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            try b.docPut("b1", ["owner": "bob"])
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try b.docBody("a-old") == nil)
            // Bob's checkpoint is past a-old now; a grant must still bring it.
            _ = try await f.base.sql("INSERT INTO S.channel_grants VALUES ('\(f.bob)', 'alice', false)")
            let granted = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try b.docBody("a-old") == ["owner": "alice"], "the grant did not bring an older document: \(granted)")
            #expect(try b.docBody("b1") == ["owner": "bob"])
            _ = try await f.base.sql("DELETE FROM S.channel_grants WHERE role = '\(f.bob)' AND channel = 'alice'")
            let revoked = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try b.branches(of: "a-old").isEmpty, "a revoked channel's document stayed: \(revoked)")
            #expect(try b.docBody("b1") == ["owner": "bob"], "bob's own document went with the revoked channel")
            // Leaving a group role that holds the grant counts the same as losing the grant.
            let group = "\(f.base.schema)_team_readers"
            _ = try await f.base.sql("CREATE ROLE \"\(group)\" NOLOGIN")
            defer { Task { _ = try? await f.base.sql("DROP ROLE IF EXISTS \"\(group)\"") } }
            _ = try await f.base.sql("INSERT INTO S.channel_grants VALUES ('\(group)', 'alice', false)")
            _ = try await f.base.sql("GRANT \"\(group)\" TO \"\(f.bob)\"")
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try b.docBody("a-old") == ["owner": "alice"], "a grant through a group role did not reach bob")
            _ = try await f.base.sql("REVOKE \"\(group)\" FROM \"\(f.bob)\"")
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            #expect(try b.branches(of: "a-old").isEmpty, "leaving the group role did not remove its channel's documents")
            _ = try await f.base.sql("DELETE FROM S.channel_grants WHERE role = '\(group)'")
        }
    }

    /// What a person holding bob's password can do with raw SQL: nothing that changes a row, and
    /// nothing that reads another user's.
    @Test func anAttackerWithAReplicasCredentialsChangesNothingAndReadsNothingElse() async throws {
        try await AccessFixture.with("attack", bodyLimit: 4096) { f in
            let a = try f.base.store("alice"), b = try f.base.store("bob")
            try a.docPut("a1", ["owner": "alice", "secret": "alice's"])
            try a.docPut("a-team", ["channels": ["team"]])
            try b.docPut("b1", ["owner": "bob"])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            _ = try await f.sync(b, as: f.bobAddress).dpRun()
            // An old tombstone of alice's, which a purge could take.
            try a.docPut("a-gone", ["owner": "alice"])
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            try a.docRemove("a-gone")
            _ = try await f.sync(a, as: f.aliceAddress) { $0.tombstoneRetention = nil }.dpRun()
            let aliceReplication = try #require(try await f.base.value("SELECT replication FROM S.checkpoints WHERE owner = '\(f.alice)' LIMIT 1"))
            let before = try await f.fingerprint()

            var attempts: [(String, String)] = []
            // Tables: no privilege at all, read or write.
            for statement in ["SELECT * FROM S.documents", "SELECT * FROM S.revisions", "SELECT * FROM S.feed", "SELECT * FROM S.meta",
                              "SELECT * FROM S.checkpoints", "SELECT * FROM S.purges", "SELECT * FROM S.channel_grants",
                              "SELECT * FROM S.current_documents",
                              "INSERT INTO S.revisions(document, revision, generation, digest, deleted, leaf, body) VALUES ('a1', '9-x', 9, 'x', false, true, '{}')",
                              "UPDATE S.documents SET deleted = true WHERE id = 'a1'", "DELETE FROM S.documents",
                              "UPDATE S.feed SET value = value + 1", "SELECT value FROM S.feed FOR UPDATE",
                              "UPDATE S.meta SET value = 'x' WHERE key = 'server_id'", "DELETE FROM S.purges",
                              "INSERT INTO S.channel_grants VALUES ('\(f.bob)', 'alice', true)",
                              "INSERT INTO S.channel_grants VALUES ('\(f.bob)', '*', true)",
                              "UPDATE S.checkpoints SET push = '' ", "INSERT INTO S.purges VALUES (999, 'a1', 'DocPromiseNote', '{}')",
                              "SELECT S.winners(ARRAY['a1'])", "SELECT S.document_channels('{}')", "SELECT S.caller_channels(true)",
                              "CREATE OR REPLACE FUNCTION S.document_channels(body text) RETURNS text[] LANGUAGE sql AS $$ SELECT ARRAY['*'] $$"] {
                attempts.append((statement, "42501"))
            }
            // The functions, with crafted arguments.
            func leaf(_ id: String, _ body: String, deleted: Bool = false, parent: String? = nil, revision: String? = nil,
                      ancestors: String? = nil, limit: Int = 20) -> String {
                let revision = revision ?? Revision.next(after: parent, canonicalBody: body, deleted: deleted)
                func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
                return """
                    SELECT S.insert_leaves(ARRAY[\(literal(id))], ARRAY['DocPromiseNote'], ARRAY[\(literal(revision))], ARRAY[\(deleted)],
                        ARRAY[\(literal(body))], ARRAY[\(literal(ancestors ?? parent ?? ""))], ARRAY[]::text[], ARRAY[]::bigint[], \(limit))
                    """
            }
            let aliceWinner = try #require(try await f.base.value("SELECT winner FROM S.documents WHERE id = 'a1'"))
            let teamWinner = try #require(try await f.base.value("SELECT winner FROM S.documents WHERE id = 'a-team'"))
            let bobWinner = try #require(try await f.base.value("SELECT winner FROM S.documents WHERE id = 'b1'"))
            let refused = ServerAccess.refusalState
            attempts += [
                (leaf("b-new", #"{"owner":"alice"}"#), refused),                                  // into a channel not granted
                (leaf("b-new", #"{"channels":["team"]}"#), refused),                              // into a read-only channel
                (leaf("b-new", #"{"text":"no channel"}"#), refused),                              // into no channel
                (leaf("a1", "{}", deleted: true, parent: aliceWinner), refused),                  // tombstone alice's document
                (leaf("a1", #"{"owner":"bob"}"#, parent: aliceWinner), refused),                  // take it into bob's channel
                (leaf("a-team", #"{"channels":["team"],"x":1}"#, parent: teamWinner), refused),   // edit a read-only document
                (leaf("b1", #"{"owner":"bob","v":2}"#, parent: bobWinner,
                      revision: "2-" + String(repeating: "0", count: 64)), refused),              // forged digest
                (leaf("b1", #"{"owner":"bob","v":2}"#, parent: bobWinner,
                      revision: "5-" + Revision.next(after: bobWinner, canonicalBody: #"{"owner":"bob","v":2}"#, deleted: false).split(separator: "-")[1]), refused), // wrong generation
                (leaf("b1", #"{"owner":"bob","v":3}"#, parent: nil,
                      revision: Revision.next(after: "1-" + String(repeating: "a", count: 64), canonicalBody: #"{"owner":"bob","v":3}"#, deleted: false)), refused), // no parent sent
                (leaf("b1", #"{"owner":"bob","v":2}"#, parent: bobWinner,
                      ancestors: "\(bobWinner) 7-\(String(repeating: "b", count: 64))"), refused),            // ancestry out of order
                (leaf("b1", #"{"owner":"bob","v":2}"#, parent: bobWinner,
                      ancestors: "\(bobWinner) \(bobWinner)"), refused),                                       // a cycle in the ancestry
                (leaf("b-big", #"{"owner":"bob","pad":""# + String(repeating: "x", count: 5000) + #""}"#), refused), // over the body limit
                (leaf("b-bad", #"{"owner":"bob""#), refused),                                     // not JSON
                (leaf("b-nul", #"{"owner":"bob","x":"\u0000"}"#), refused),                       // \u0000: no channel can be read from it
                (leaf("b-del", #"{"owner":"bob"}"#, deleted: true), refused),                     // a deletion with a body
                (leaf("", #"{"owner":"bob"}"#), refused),                                         // no identifier
                (leaf("b-h", #"{"owner":"bob"}"#, limit: 0), refused),                            // history limit 0
                ("""
                 SELECT S.insert_leaves(ARRAY['b-x','b-y'], ARRAY['DocPromiseNote'], ARRAY['1-x'], ARRAY[false], ARRAY['{}'], ARRAY[''],
                     ARRAY[]::text[], ARRAY[]::bigint[], 20)
                 """, refused),                                                                   // arrays of different lengths
                ("SELECT S.checkpoint_get('\(aliceReplication)', 'push')", refused),             // another role's checkpoint
                ("SELECT S.checkpoint_set('\(aliceReplication)', 'pull', '')", refused),
                ("SELECT S.checkpoint_set('mine', 'sideways', '')", refused),
                ("SELECT S.checkpoint_set('mine', 'push', repeat('x', 70000))", refused),
            ]
            for (statement, expected) in attempts {
                let found = await f.failure(statement, as: f.bobAddress)
                #expect(found == expected, "\(statement.prefix(160)): expected \(expected), got \(found ?? "success")")
            }
            // Invalid UTF-8 cannot reach a function at all: PostgreSQL refuses the bytes (22021).
            // Purging as bob does nothing (only a role granted * purges), though a tombstone is there.
            let purge = try await DocPromiseFixture.sql("SELECT \"\(f.base.schema)\".purge_tombstones(0)::text", address: f.bobAddress)
            #expect(purge == [[nil]], "\(purge)")
            // Reads through the functions show only bob's channels.
            let page = try await DocPromiseFixture.sql("SELECT id FROM \"\(f.base.schema)\".feed_page(0, 100, NULL)", address: f.bobAddress)
            #expect(Set(page.compactMap { $0[0] }) == ["b1", "a-team"], "\(page)")
            let trees = try await DocPromiseFixture.sql("SELECT document FROM \"\(f.base.schema)\".tree(ARRAY['a1', 'a-gone', 'b1'])", address: f.bobAddress)
            #expect(Set(trees.compactMap { $0[0] }) == ["b1"], "\(trees)")
            let revisions = try await DocPromiseFixture.sql("SELECT document FROM \"\(f.base.schema)\".revisions_of(ARRAY['a1'])", address: f.bobAddress)
            #expect(revisions.isEmpty, "\(revisions)")
            #expect(try await f.fingerprint() == before, "an attempt changed the server")
            // The feed lock: bob cannot lock the counter row by hand (checked above); a push he leaves
            // open holds it only as long as his transaction, which the server's timeouts bound (see
            // UsersChannelsAndPermissions.md).

            // An administrator purges; bob's feed never shows alice's purge record.
            _ = try await f.sync(try f.base.store("admin"), as: f.adminAddress) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await f.base.value("SELECT count(*)::text FROM S.purges WHERE id = 'a-gone'") == "1")
            let purges = try await DocPromiseFixture.sql("SELECT id FROM \"\(f.base.schema)\".feed_purges(0, NULL, NULL)", address: f.bobAddress)
            #expect(purges.isEmpty, "\(purges)")
            let alicePurges = try await DocPromiseFixture.sql("SELECT id FROM \"\(f.base.schema)\".feed_purges(0, NULL, NULL)", address: f.aliceAddress)
            #expect(alicePurges == [["a-gone"]], "\(alicePurges)")
            _ = try await f.sync(a, as: f.aliceAddress).dpRun()
            #expect(try a.branches(of: "a-gone").isEmpty)
            _ = b
        }
    }
}
