// Black-box tests of UsersChannelsAndPermissions.md (issue 47's access control), written without reading the
// implementation: each test quotes the sentence it checks. A promise the toolkit does not keep is wrapped in
// `withKnownIssue("DOC-PROMISE-FAILS: …")`. Roles are cluster-wide: each gets a random suffix and is dropped.
import DocumentStore
import DocumentSync
import Foundation
import Logging
import PostgresNIO
import Testing
import TestSupport

// MARK: - Support

/// A schema (with access control unless asked otherwise), login roles made by `userScript`, group roles, grants.
final class BBChannels: @unchecked Sendable {
    let f: DocPromiseFixture
    let s = BB47.suffix()
    private(set) var roles: [String] = []

    init(_ f: DocPromiseFixture) { self.f = f }

    static func with(_ name: String, access: Bool = true, channelFields: [String] = ["owner", "channels"], bodyLimit: Int? = nil,
                     _ body: (BBChannels) async throws -> Void) async throws {
        try await DocPromiseFixture.with(name) { f in
            let c = BBChannels(f)
            do {
                try await c.psql(try DocumentSync.schemaScript(schema: f.schema))
                if access { try await c.access(channelFields: channelFields, bodyLimit: bodyLimit) }
                try await body(c)
            } catch {
                await c.dropRoles()
                throw error
            }
            await c.dropRoles()
        }
    }

    var schema: String { f.schema }
    var group: String { "\(f.schema)_replica" }

    func dropRoles() async {
        await BB47.dropRoles(roles.reversed() + [group], f)
    }

    func psql(_ script: String) async throws { try await BB47.psql(script, address: f.address, in: f.folder) }

    func access(channelFields: [String] = ["owner", "channels"], bodyLimit: Int? = nil) async throws {
        if let bodyLimit {
            try await psql(try DocumentSync.accessScript(schema: f.schema, channelFields: channelFields, bodyLimit: bodyLimit))
        } else {
            try await psql(try DocumentSync.accessScript(schema: f.schema, channelFields: channelFields))
        }
    }

    /// A login role made by `userScript`, with a password; its address.
    func login(_ name: String) async throws -> PostgresAddress {
        let role = "\(name)_\(s)"
        roles.append(role)
        try await psql(try DocumentSync.userScript(user: role, schema: f.schema))
        _ = try await f.sql("ALTER ROLE \"\(role)\" PASSWORD 'pw-\(role)'")
        var address = f.address
        address.user = role
        address.password = "pw-\(role)"
        return address
    }

    /// A group role (NOLOGIN) of the test's own.
    func groupRole(_ name: String) async throws -> String {
        let role = "\(name)_\(s)"
        roles.append(role)
        _ = try await f.sql("CREATE ROLE \"\(role)\" NOLOGIN")
        return role
    }

    func grant(_ role: String, _ channel: String, _ writable: Bool) async throws {
        _ = try await f.sql("INSERT INTO S.channel_grants(role, channel, writable) VALUES ('\(role)', '\(channel)', \(writable))")
    }

    func sync(_ store: Persistence, _ address: PostgresAddress,
              _ change: (inout DocumentSync.Configuration) -> Void = { _ in }) throws -> DocumentSync {
        try f.sync(store) {
            $0.address = address
            $0.createSchema = false
            change(&$0)
        }
    }

    /// Pushes a store as a login role granted `*` (made the first time).
    func seed(_ store: Persistence) async throws {
        if seeder == nil {
            let address = try await login("seed")
            try await grant(address.user, "*", true)
            seeder = address
        }
        _ = try await sync(store, seeder!).dpRun()
    }
    private var seeder: PostgresAddress?

    /// The schema owner's (the superuser's) replicator.
    func ownerSync(_ store: Persistence, _ change: (inout DocumentSync.Configuration) -> Void = { _ in }) throws -> DocumentSync {
        try f.sync(store) {
            $0.createSchema = false
            change(&$0)
        }
    }

    /// Runs SQL (`S.` is the schema) as the role of `address`.
    func asRole(_ text: String, _ address: PostgresAddress) async -> Result<[[String?]], any Error> {
        do {
            return .success(try await DocPromiseFixture.sql(text.replacingOccurrences(of: "S.", with: "\"\(f.schema)\"."), address: address))
        } catch {
            return .failure(error)
        }
    }

    /// The SQL state of a failed statement, when it is one of the states these tests look for.
    static func state(_ result: Result<[[String?]], any Error>) -> String? {
        guard case .failure(let error) = result else { return nil }
        let text = "\(error)"
        for state in ["42501", ServerAccess.refusalState, "42883", "22P02", "22023", "54000", "57P01", "25P03"] where text.contains(state) {
            return state
        }
        return "other: \(text.prefix(400))"
    }

    /// A call of `insert_leaves` with one leaf, computed with `Revision` unless given.
    static func leaf(_ id: String, _ body: String, deleted: Bool = false, parent: String? = nil, revision: String? = nil,
                     ancestors: String? = nil, limit: Int = 20) -> String {
        let revision = revision ?? Revision.next(after: parent, canonicalBody: body, deleted: deleted)
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return """
            SELECT S.insert_leaves(ARRAY[\(literal(id))], ARRAY['DocPromiseNote'], ARRAY[\(literal(revision))], ARRAY[\(deleted)],
                ARRAY[\(literal(body))], ARRAY[\(literal(ancestors ?? parent ?? ""))], ARRAY[]::text[], ARRAY[]::bigint[], \(limit))
            """
    }

    /// A document's channels on the server, sorted (nil when the row or its channels are missing).
    func channels(_ id: String) async throws -> [String]? {
        let rows = try await f.sql("SELECT array_to_string(channels, ',', '<null>') FROM S.documents WHERE id = '\(id)'")
        guard let row = rows.first, let text = row[0] else { return nil }
        return text.isEmpty ? [] : text.split(separator: ",").map(String.init).sorted()
    }

    /// What `document_channels` gives for a body, sorted.
    func computed(_ body: String) async throws -> [String]? {
        let literal = "'" + body.replacingOccurrences(of: "'", with: "''") + "'"
        let rows = try await f.sql("SELECT array_to_string(S.document_channels(\(literal)), ',', '<null>')")
        guard let row = rows.first, let text = row[0] else { return nil }
        return text.isEmpty ? [] : text.split(separator: ",").map(String.init).sorted()
    }

    func checkpoints() async throws -> [[String?]] {
        try await f.sql("SELECT replication, push, pull, owner::text FROM S.checkpoints ORDER BY replication")
    }

    /// A store's leaves (or one document's branches), for messages.
    static func show(_ store: Persistence) -> String { (try? store.allLeaves()).map { "\($0)" } ?? "?" }
    static func show(_ store: Persistence, _ id: String) -> String { (try? store.branches(of: id)).map { "\($0)" } ?? "?" }

    /// The identifiers a store holds (live or deleted).
    static func ids(_ store: Persistence) throws -> Set<String> { Set(try store.allLeaves().keys) }
}

/// The document and rule of a `refused` failure, nil for anything else.
func bbRefusal(_ result: Result<DocumentSync.Report, any Error>) -> (document: String?, rule: String)? {
    if case .failure(let error) = result, let sync = error as? DocumentSyncError, case .refused(let document, let rule) = sync {
        return (document, rule)
    }
    return nil
}

// MARK: - Channels and grants

@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct DocPromiseChannelsTests {

    // "The server computes each document's channels from its winning body: by default the string, or strings, in its
    // top-level `owner` and `channels` fields. `{"owner": "alice"}` is in channel `alice`; `{"channels": ["team",
    // "sales"]}` in `team` and `sales`." … "A body with none of the fields (or one that is not a JSON object) is in no channel."
    @Test func channelsComeFromTheOwnerAndChannelsFieldsOfTheWinningBody() async throws {
        try await BBChannels.with("bbchfields") { c in
            let o = try c.f.store("owner")
            try o.docPut("owner1", ["owner": "alice"])
            try o.docPut("chans", ["channels": ["team", "sales"]])
            try o.docPut("chanstr", ["channels": "solo"])
            try o.docPut("ownarr", ["owner": ["x1", "x2"]])
            try o.docPut("both", ["owner": "alice", "channels": ["team"], "text": "hi"])
            try o.docPut("none", ["text": "no channel"])
            try o.docPut("nested", ["meta": ["owner": "deep"]])
            try await c.seed(o)
            #expect(try await c.channels("owner1") == ["alice"])
            #expect(try await c.channels("chans") == ["sales", "team"])
            #expect(try await c.channels("chanstr") == ["solo"], "a string `channels` field: the string")
            #expect(try await c.channels("ownarr") == ["x1", "x2"], "an array `owner` field: its strings")
            #expect(try await c.channels("both") == ["alice", "team"])
            #expect(try await c.channels("none") == [], "a body with none of the fields")
            #expect(try await c.channels("nested") == [], "only top-level fields count")
            // Bodies that are not JSON objects.
            for body in ["[\"alice\"]", "\"alice\"", "3", "null", "not json"] {
                let found = try await c.computed(body)
                #expect(found == [] || found == nil, "\(body) is in channels \(String(describing: found))")
            }
            // Its winning body: an edit moves it.
            try o.docPut("owner1", ["owner": "bob"])
            try await c.seed(o)
            #expect(try await c.channels("owner1") == ["bob"])
            // A reader of `sales` alone reads the document of two channels.
            let reader = try await c.login("sales")
            try await c.grant(reader.user, "sales", false)
            let r = try c.f.store("sales")
            _ = try await c.sync(r, reader).dpRun()
            #expect(try BBChannels.ids(r) == ["chans"], "a reader of sales holds \(BBChannels.show(r))")
        }
    }

    // "A deleted document keeps the channels it had, so its readers receive the deletion."
    @Test func aDeletionKeepsItsChannelsAndReachesItsReaders() async throws {
        try await BBChannels.with("bbchdel") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(bob.user, "alice", false)
            let a = try c.f.store("a"), b = try c.f.store("b")
            try a.docPut("a1", ["owner": "alice", "v": 1])
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            #expect(try b.docBody("a1") == ["owner": "alice", "v": 1])
            try a.docRemove("a1")
            _ = try await c.sync(a, alice).dpRun()
            #expect(try await c.channels("a1") == ["alice"], "the tombstone's channels")
            _ = try await c.sync(b, bob).dpRun()
            #expect(try b.docBody("a1") == nil, "the reader did not receive the deletion")
            #expect(try b.branches(of: "a1").allSatisfy(\.deleted) && !(try b.branches(of: "a1").isEmpty),
                    "the reader's copy is not a tombstone: \(BBChannels.show(b, "a1"))")
        }
    }

    // "A body with none of the fields … is in no channel." + "The channel `*` stands for every channel, and for documents
    // in none." + table: "the schema's owner | all".
    @Test func documentsInNoChannelReachOnlyStarAndTheOwner() async throws {
        try await BBChannels.with("bbchnone") { c in
            let alice = try await c.login("alice"), admin = try await c.login("admin")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(alice.user, "team", true)
            try await c.grant(admin.user, "*", true)
            let o = try c.f.store("owner")
            try o.docPut("loose", ["text": "in no channel"])
            try o.docPut("a1", ["owner": "alice"])
            try o.docPut("z1", ["owner": "zed"])
            try await c.seed(o)
            let a = try c.f.store("a"), d = try c.f.store("admin")
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(d, admin).dpRun()
            #expect(try BBChannels.ids(a) == ["a1"])
            #expect(try BBChannels.ids(d) == ["loose", "a1", "z1"], "`*` reads every channel and none")
            // `*` writes there too: the admin edits the loose document, alice may not create one.
            try d.docPut("loose", ["text": "edited by admin"])
            try d.docPut("z1", ["owner": "zed", "v": 2])
            let pushed = await BB47.outcome { try await c.sync(d, admin).dpRun() }
            #expect((try? pushed.get()) != nil, "`*` could not write: \(pushed)")
            try a.docPut("a-loose", ["text": "alice, no channel"])
            let refused = await BB47.outcome { try await c.sync(a, alice).dpPush() }
            #expect(bbRefusal(refused)?.document == "a-loose", "alice wrote a document into no channel: \(refused)")
            let o2 = try c.f.store("owner2")          // o's checkpoints are the seeding role's
            _ = try await c.ownerSync(o2).dpRun()
            #expect(try o2.docBody("loose") == ["text": "edited by admin"], "the owner reads all")
        }
    }

    // "`channel_grants(role, channel, writable)` gives a role (a login role, or a group role whose members all get it) a
    // channel to read, and to write when `writable`." + "which read the caller's grants (`session_user`, through every
    // role it is a member of)"
    @Test func groupRoleGrantsReachEveryMemberAndReadOnlyGrantsDoNotWrite() async throws {
        try await BBChannels.with("bbchgroup") { c in
            let carol = try await c.login("carol"), dave = try await c.login("dave"), eve = try await c.login("eve")
            let writers = try await c.groupRole("writers"), readers = try await c.groupRole("readers"), outer = try await c.groupRole("outer")
            try await c.grant(writers, "team", true)
            try await c.grant(readers, "team", false)
            try await c.grant(outer, "sales", false)
            _ = try await c.f.sql("GRANT \"\(writers)\" TO \"\(carol.user)\"")
            _ = try await c.f.sql("GRANT \"\(readers)\" TO \"\(dave.user)\"")
            _ = try await c.f.sql("GRANT \"\(outer)\" TO \"\(readers)\"")    // dave is in outer through readers
            let o = try c.f.store("owner")
            try o.docPut("s1", ["channels": ["sales"]])
            try await c.seed(o)
            let cs = try c.f.store("carol"), ds = try c.f.store("dave"), es = try c.f.store("eve")
            try cs.docPut("t1", ["channels": ["team"], "v": 1])
            let written = await BB47.outcome { try await c.sync(cs, carol).dpRun() }
            #expect((try? written.get()) != nil, "a member of a group with a write grant could not write: \(written)")
            _ = try await c.sync(ds, dave).dpRun()
            _ = try await c.sync(es, eve).dpRun()
            #expect(try BBChannels.ids(ds) == ["t1", "s1"], "dave (readers, outer through readers) holds \(BBChannels.show(ds))")
            #expect(try BBChannels.ids(es).isEmpty, "eve, with no grant, holds \(BBChannels.show(es))")
            #expect(try BBChannels.ids(cs) == ["t1"])
            // A read grant does not write.
            try ds.docPut("t1", ["channels": ["team"], "v": "dave"])
            let refused = await BB47.outcome { try await c.sync(ds, dave).dpPush() }
            #expect(bbRefusal(refused)?.document == "t1", "a read-only member wrote: \(refused)")
            #expect(try await c.f.count("S.revisions WHERE document = 't1'") == 1, "dave's edit reached the server")
        }
    }

    // "The replica group loses every privilege on the schema's tables. It may only call the schema's functions,
    // `SECURITY DEFINER` with `search_path` pinned to `pg_catalog, pg_temp`" + table: "tables, by SQL | nothing: permission
    // denied (`42501`)" + "`channel_grants` | nothing" + "(``DocumentSync/userScript(user:schema:)``, as before: on a schema
    // with access control it grants the functions only)"
    @Test func theReplicaGroupHasNoTablePrivilegesAndOnlyDefinerFunctions() async throws {
        try await BBChannels.with("bbchpriv", access: false) { c in
            let early = try await c.login("early")          // made before access control
            try await c.access()
            let late = try await c.login("late")            // made after
            try await c.grant(early.user, "*", true)
            try await c.grant(late.user, "*", true)
            let o = try c.f.store("owner")
            try o.docPut("d1", ["owner": "x"])
            try await c.seed(o)
            // No privilege on any relation of the schema, for the group or either role.
            for role in [c.group, early.user, late.user] {
                let rows = try await c.f.sql("""
                    SELECT c.relname, p.privilege FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
                        unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) AS p(privilege)
                    WHERE n.nspname = '\(c.schema)' AND c.relkind IN ('r','v','m','p','f')
                      AND has_table_privilege('\(role)', c.oid, p.privilege)
                    """)
                #expect(rows.isEmpty, "\(role) keeps table privileges: \(rows)")
                let sequences = try await c.f.sql("""
                    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = '\(c.schema)' AND CASE WHEN c.relkind = 'S' THEN has_sequence_privilege('\(role)', c.oid, 'USAGE,SELECT,UPDATE') ELSE false END
                    """)
                #expect(sequences.isEmpty, "\(role) keeps sequence privileges: \(sequences)")
                // Every function it may call is SECURITY DEFINER with search_path pinned.
                let functions = try await c.f.sql("""
                    SELECT p.proname, p.prosecdef::text, coalesce(array_to_string(p.proconfig, ';'), '')
                    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE n.nspname = '\(c.schema)' AND has_function_privilege('\(role)', p.oid, 'EXECUTE')
                    """)
                #expect(!functions.isEmpty)
                for row in functions {
                    #expect(row[1] == "true" && row[2] == "search_path=pg_catalog, pg_temp", "\(role) may call \(row)")
                }
            }
            // By SQL: permission denied on every table and view, reading or writing.
            let relations = try await c.f.sql("""
                SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = '\(c.schema)' AND c.relkind IN ('r','v','m','p')
                """).map { $0[0]! }
            #expect(Set(relations).isSuperset(of: ["documents", "revisions", "checkpoints", "meta", "channel_grants", "purges"]), "\(relations)")
            for address in [early, late] {
                for relation in relations {
                    for statement in ["SELECT count(*) FROM S.\(relation)"] + (relation == "current_documents" ? [] : ["DELETE FROM S.\(relation)"]) {
                        let result = await c.asRole(statement, address)
                        #expect(BBChannels.state(result) == "42501", "\(address.user): \(statement): \(result)")
                    }
                }
                let insert = await c.asRole("INSERT INTO S.channel_grants(role, channel, writable) VALUES ('\(address.user)', 'x', true)", address)
                #expect(BBChannels.state(insert) == "42501", "\(insert)")
            }
            #expect(try await c.f.count("S.channel_grants") == 3)
            #expect(try await c.f.count("S.documents") == 1)
            // And both replicate, through the functions.
            let e = try c.f.store("early"), l = try c.f.store("late")
            _ = try await c.sync(e, early).dpRun()
            _ = try await c.sync(l, late).dpRun()
            #expect(try BBChannels.ids(e) == ["d1"] && (try BBChannels.ids(l)) == ["d1"])
        }
    }

    // Table "What each role sees": documents, conflicts and ancestry, the feed and purge records, revision trees, checkpoints,
    // `meta` ("the server's identity, version and purge horizon"), `channel_grants` ("nothing").
    @Test func eachRoleSeesOnlyWhatTheTableSays() async throws {
        try await BBChannels.with("bbchsees") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob"), admin = try await c.login("admin")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(alice.user, "team", true)
            try await c.grant(bob.user, "bob", true)
            try await c.grant(admin.user, "*", true)
            let a = try c.f.store("a"), a2 = try c.f.store("a2"), b = try c.f.store("b"), d = try c.f.store("admin")
            try a.docPut("a1", ["owner": "alice"])
            try a.docPut("t1", ["channels": ["team"], "v": 0])
            try a.docPut("a-gone", ["owner": "alice"])
            try b.docPut("b1", ["owner": "bob"])
            try b.docPut("b-gone", ["owner": "bob"])
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            _ = try await c.sync(a2, alice).dpRun()
            // A conflict on t1 (two stores of alice), and a conflict on b1 (two stores of bob).
            try a.docPut("t1", ["channels": ["team"], "v": 1])
            try a2.docPut("t1", ["channels": ["team"], "v": 2])
            _ = try await c.sync(a, alice).dpPush()
            _ = try await c.sync(a2, alice).dpPush()
            let b2 = try c.f.store("b2")
            _ = try await c.sync(b2, bob).dpRun()
            try b.docPut("b1", ["owner": "bob", "v": 1])
            try b2.docPut("b1", ["owner": "bob", "v": 2])
            _ = try await c.sync(b, bob).dpPush()
            _ = try await c.sync(b2, bob).dpPush()
            // Purge records of one document of each.
            try a.docRemove("a-gone")
            try b.docRemove("b-gone")
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            _ = try await c.sync(d, admin) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await c.f.count("S.purges") == 2, "the admin's run did not purge both tombstones")
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            #expect(try BBChannels.ids(a) == ["a1", "t1"])
            #expect(try a.branches(of: "t1").count == 2, "alice does not see t1's conflict: \(BBChannels.show(a, "t1"))")
            #expect(try BBChannels.ids(b) == ["b1"])

            // The functions, by SQL, as alice.
            func rows(_ text: String) async -> [[String?]] {
                switch await c.asRole(text, alice) {
                case .success(let rows): return rows
                case .failure(let error): Issue.record("as alice: \(text): \(error)"); return []
                }
            }
            let feed = Set(await rows("SELECT id FROM S.feed_page(0, 100000, NULL)").map { $0[0]! })
            #expect(feed.isSubset(of: ["a1", "t1", "a-gone"]) && feed.isSuperset(of: ["a1", "t1"]), "alice's feed: \(feed)")
            let purges = Set(await rows("SELECT id FROM S.feed_purges(0, 9223372036854775807, NULL)").map { $0[0]! })
            #expect(purges == ["a-gone"], "alice's purge records: \(purges)")
            let purgedAmong = Set(await rows("SELECT id FROM S.purged_among(ARRAY['a-gone','b-gone'])").map { $0[0]! })
            #expect(!purgedAmong.contains("b-gone"), "alice learns bob's purge: \(purgedAmong)")
            let tree = Set(await rows("SELECT document FROM S.tree(ARRAY['a1','t1','b1'])").map { $0[0]! })
            #expect(tree == ["a1", "t1"], "alice's revision trees: \(tree)")
            let revisions = Set(await rows("SELECT document FROM S.revisions_of(ARRAY['a1','t1','b1'])").map { $0[0]! })
            #expect(revisions == ["a1", "t1"], "alice's revisions_of: \(revisions)")
            let info = Set(await rows("SELECT key FROM S.server_info()").map { $0[0]! })
            print("eachRoleSees: server_info as a replica: \(info)")
            #expect(info.isSuperset(of: ["server_id", "schema_version", "purge_horizon"]), "\(info)")
            // "`meta` | the server's identity, version and purge horizon, whether access control is on, and the body limit"
            #expect(info == ["server_id", "schema_version", "purge_horizon", "access", "body_limit"],
                    "meta shows a replica something else: \(info)")
            // Checkpoints: only the ones R wrote.
            let bobReplications = try await c.f.sql("SELECT replication FROM S.checkpoints WHERE owner = '\(bob.user)'").map { $0[0]! }
            #expect(!bobReplications.isEmpty)
            for replication in bobReplications {
                for direction in ["push", "pull"] {
                    let got = await c.asRole("SELECT S.checkpoint_get('\(replication)', '\(direction)')", alice)
                    if case .success(let value) = got {
                        #expect(value.allSatisfy { $0.allSatisfy { $0 == nil || $0 == "" } }, "alice read bob's checkpoint: \(value)")
                    }
                }
            }
            // The owner sees all.
            let o = try c.f.store("owner")
            _ = try await c.ownerSync(o).dpRun()
            #expect(try BBChannels.ids(o) == ["a1", "t1", "b1"])
            #expect(try o.branches(of: "b1").count == 2)
        }
    }

    // "its revision identifier is recomputed from its parent, its deleted flag and its body with PostgreSQL's `sha256()`,
    // exactly as `Revision` computes it, so a forged digest is refused" + "its ancestors count down one generation at a time
    // from it, and a revision past the first comes with its parent" + "its body is JSON … and `{}` for a deletion"
    @Test func insertLeavesRefusesForgedDigestsBrokenAncestryBadJsonAndDeletionBodies() async throws {
        try await BBChannels.with("bbchleaves") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            let refused = ServerAccess.refusalState
            let body1 = #"{"owner":"alice","v":1}"#
            // Exactly as Revision computes it: accepted.
            let first = await c.asRole(BBChannels.leaf("r1", body1), alice)
            #expect(BBChannels.state(first) == nil, "a revision computed as Revision does was refused: \(first)")
            let r1 = Revision.next(after: nil, canonicalBody: body1, deleted: false)
            #expect(try await c.f.value("SELECT winner FROM S.documents WHERE id = 'r1'") == r1)
            let body2 = #"{"owner":"alice","v":2}"#
            let good2 = Revision.next(after: r1, canonicalBody: body2, deleted: false)
            let zeros = String(repeating: "0", count: 64)
            let attempts: [(String, String)] = [
                ("forged digest", BBChannels.leaf("r1", body2, parent: r1, revision: "2-" + zeros)),
                ("digest of another body", BBChannels.leaf("r1", body2, parent: r1, revision: Revision.next(after: r1, canonicalBody: body1, deleted: false))),
                ("digest as if not deleted", BBChannels.leaf("r1", "{}", deleted: true, parent: r1, revision: Revision.next(after: r1, canonicalBody: "{}", deleted: false))),
                ("wrong generation", BBChannels.leaf("r1", body2, parent: r1, revision: "3-" + good2.split(separator: "-")[1])),
                ("no parent", BBChannels.leaf("r1", body2, revision: good2, ancestors: "")),
                ("ancestry skips a generation", BBChannels.leaf("r1", body2, parent: r1, ancestors: "\(r1) 0-\(zeros)")),
                ("ancestry not counting down", BBChannels.leaf("r9", #"{"owner":"alice"}"#, revision: Revision.next(after: "1-" + zeros, canonicalBody: #"{"owner":"alice"}"#, deleted: false), ancestors: "3-\(zeros)")),
                ("not JSON", BBChannels.leaf("r2", #"{"owner":"alice""#)),
                ("a deletion with a body", BBChannels.leaf("r1", #"{"owner":"alice"}"#, deleted: true, parent: r1)),
                ("a new deletion with a body", BBChannels.leaf("r3", #"{"owner":"alice"}"#, deleted: true)),
            ]
            for (what, statement) in attempts {
                let result = await c.asRole(statement, alice)
                #expect(BBChannels.state(result) == refused, "\(what): \(result)")
            }
            #expect(try await BB47.serverLeaves(c.f) == ["r1": [r1]], "a refused leaf changed the server")
            // Positive controls: the right child and a `{}` deletion go through.
            #expect(BBChannels.state(await c.asRole(BBChannels.leaf("r1", body2, parent: r1), alice)) == nil)
            #expect(BBChannels.state(await c.asRole(BBChannels.leaf("r1", "{}", deleted: true, parent: good2, ancestors: "\(good2) \(r1)"), alice)) == nil)
            #expect(try await c.f.value("SELECT deleted::text FROM S.documents WHERE id = 'r1'") == "true")
        }
    }

    // "(a replica whose revision history limit is 1 keeps no parent: use at least 2)"
    @Test func aReplicaWithHistoryLimitOneCannotPushASecondRevisionAndTwoCan() async throws {
        try await BBChannels.with("bbchhist") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            let one = try c.f.store("one", historyLimit: 1), two = try c.f.store("two", historyLimit: 2)
            try one.docPut("h1", ["owner": "alice", "v": 1])
            try two.docPut("h2", ["owner": "alice", "v": 1])
            _ = try await c.sync(one, alice) { $0.revisionHistoryLimit = 1 }.dpRun()
            _ = try await c.sync(two, alice) { $0.revisionHistoryLimit = 2 }.dpRun()
            try one.docPut("h1", ["owner": "alice", "v": 2])
            try two.docPut("h2", ["owner": "alice", "v": 2])
            let pushedOne = await BB47.outcome { try await c.sync(one, alice) { $0.revisionHistoryLimit = 1 }.dpPush() }
            let pushedTwo = await BB47.outcome { try await c.sync(two, alice) { $0.revisionHistoryLimit = 2 }.dpPush() }
            print("historyLimit: limit 1: \(pushedOne); limit 2: \(pushedTwo)")
            // Limit 1 is only advised against: its outcome is printed, not asserted (it went through when this was written).
            #expect((try? pushedTwo.get()) != nil, "limit 2's second revision: \(pushedTwo)")
        }
    }

    // "its body is JSON, at most the body limit" + "the largest body the server accepts (1 MiB by default)"
    @Test func bodiesUpToTheLimitPassAndOneByteMoreIsRefused() async throws {
        try await BBChannels.with("bbchlimit") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            func body(_ size: Int) -> String {
                let prefix = #"{"owner":"alice","p":""#
                return prefix + String(repeating: "x", count: size - prefix.utf8.count - 2) + #""}"#
            }
            let mib = 1 << 20
            #expect(body(mib).utf8.count == mib)
            let exact = await c.asRole(BBChannels.leaf("exact", body(mib)), alice)
            #expect(BBChannels.state(exact) == nil, "a body of exactly 1 MiB: \(exact)")
            let over = await c.asRole(BBChannels.leaf("over", body(mib + 1)), alice)
            #expect(BBChannels.state(over) == ServerAccess.refusalState, "a body of 1 MiB + 1: \(over)")
            // Through a replicator: refused, naming the document.
            let a = try c.f.store("a")
            try a.docPut("big", ["owner": "alice", "p": .string(String(repeating: "y", count: mib + 10))])
            let pushed = await BB47.outcome { try await c.sync(a, alice).dpPush(.seconds(20)) }
            #expect(bbRefusal(pushed)?.document == "big", "a body over 1 MiB: \(pushed)")
            #expect(try await c.f.count("S.documents WHERE id IN ('over', 'big')") == 0)
        }
    }

    // "the caller has a write grant on every channel the document is in now and on every channel its new body puts it in (so
    // neither editing nor deleting another user's document, nor moving one's own into a channel one may not write, goes
    // through)" + "reaches the replica as ``DocumentSyncError/refused(document:rule:)``, naming the document and the rule;
    // the local store stays as it was" + "or given up with ``DocumentSync/discardLocalChanges(of:)``, which removes the local
    // copy and pulls the server's version back (where the replica may read it)."
    @Test func writesNeedWriteGrantsOnTheOldAndTheNewChannels() async throws {
        try await BBChannels.with("bbchwrite") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(alice.user, "team", true)
            try await c.grant(bob.user, "bob", true)
            try await c.grant(bob.user, "team", false)
            try await c.grant(bob.user, "alice", false)
            let a = try c.f.store("a"), b = try c.f.store("b")
            try a.docPut("a1", ["owner": "alice", "v": 1])
            try a.docPut("t1", ["channels": ["team"], "v": 1])
            try b.docPut("b1", ["owner": "bob", "v": 1])
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            #expect(try BBChannels.ids(b) == ["a1", "t1", "b1"])
            let attempts: [(String, String, (Persistence) throws -> Void, JSON?)] = [
                ("edit another user's document", "a1", { try $0.docPut("a1", ["owner": "alice", "v": "bob"]) }, ["owner": "alice", "v": 1]),
                ("delete another user's document", "a1", { try $0.docRemove("a1") }, ["owner": "alice", "v": 1]),
                ("take another user's document into one's own channel", "a1", { try $0.docPut("a1", ["owner": "bob"]) }, ["owner": "alice", "v": 1]),
                ("edit a read-only channel's document", "t1", { try $0.docPut("t1", ["channels": ["team"], "v": 2]) }, ["channels": ["team"], "v": 1]),
                ("move one's own into a read-only channel", "b1", { try $0.docPut("b1", ["channels": ["team", "bob"]]) }, ["owner": "bob", "v": 1]),
                ("move one's own into a channel not granted", "b1", { try $0.docPut("b1", ["owner": "carol"]) }, ["owner": "bob", "v": 1]),
                ("create in a read-only channel", "new-team", { try $0.docPut("new-team", ["channels": ["team"]]) }, nil),
                ("create in another's channel", "new-alice", { try $0.docPut("new-alice", ["owner": "alice"]) }, nil),
            ]
            for (what, id, change, serverBody) in attempts {
                let serverBefore = try await BB47.serverLeaves(c.f)
                try change(b)
                let localBefore = try b.allLeaves()
                let result = await BB47.outcome { try await c.sync(b, bob).dpPush() }
                let refusal = bbRefusal(result)
                #expect(refusal?.document == id, "\(what): \(result)")
                #expect(refusal.map { !$0.rule.isEmpty } ?? false, "\(what): no rule named: \(result)")
                #expect(try b.allLeaves() == localBefore, "\(what): the local store changed")
                #expect(try await BB47.serverLeaves(c.f) == serverBefore, "\(what): the server changed")
                // Given up: the local copy goes, the server's version comes back where bob reads it.
                let discarded = await BB47.outcome { try await c.sync(b, bob).discardLocalChanges(of: [id]) }
                #expect((try? discarded.get()) != nil, "\(what): discardLocalChanges: \(discarded)")
                #expect(try b.docBody(id) == serverBody, "\(what): after discarding, \(id) is \(String(describing: try? b.docBody(id)))")
                #expect(try b.allLeaves()[id] == serverBefore[id], "\(what): after discarding, \(id)'s leaves differ from the server's")
            }
            // What bob may write goes through: his own channel, and alice moves t1 between her writable channels.
            try b.docPut("b1", ["owner": "bob", "v": 2])
            try b.docPut("b2", ["channels": ["bob"]])
            #expect(try await c.sync(b, bob).dpRun().pushedDocuments == 2)
            try a.docPut("t1", ["owner": "alice", "channels": ["team"], "v": 9])
            try a.docPut("a1", ["channels": ["team"]])
            #expect(try await c.sync(a, alice).dpRun().pushedDocuments == 2)
        }
    }

    // "A push goes through `insert_leaves`, which checks every leaf before it writes any" + "A refusal rolls back the whole
    // push (nothing of it is kept, not even its checkpoint) … the local store stays as it was. That document then stops the
    // replica's pushes until it is written again into channels the replica may write"
    @Test func aRefusalRollsBackTheWholePushAndBlocksUntilRewritten() async throws {
        try await BBChannels.with("bbchroll") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            let a = try c.f.store("a")
            try a.docPut("first", ["owner": "alice"])
            _ = try await c.sync(a, alice).dpRun()
            try a.docPut("g1", ["owner": "alice", "v": 1])
            try a.docPut("x", ["owner": "bob"])
            try a.docPut("g2", ["owner": "alice", "v": 2])
            try a.docPut("first", ["owner": "alice", "v": 2])
            let serverBefore = try await BB47.serverLeaves(c.f)
            let checkpointsBefore = try await c.checkpoints()
            let localBefore = try a.allLeaves()
            for step in ["push", "run", "push again"] {
                let result = await BB47.outcome { step == "run" ? try await c.sync(a, alice).dpRun() : try await c.sync(a, alice).dpPush() }
                #expect(bbRefusal(result)?.document == "x", "\(step): \(result)")
                #expect(try await BB47.serverLeaves(c.f) == serverBefore, "\(step): part of the refused push was kept")
                #expect(try await c.checkpoints() == checkpointsBefore, "\(step): the checkpoint moved")
                #expect(try a.allLeaves() == localBefore, "\(step): the local store changed")
            }
            // More work meanwhile stays blocked.
            try a.docPut("g3", ["owner": "alice"])
            let blocked = await BB47.outcome { try await c.sync(a, alice).dpPush() }
            #expect(bbRefusal(blocked)?.document == "x")
            #expect(try await c.f.count("S.documents WHERE id = 'g3'") == 0)
            // Written again into a writable channel: everything goes up.
            try a.docPut("x", ["owner": "alice", "fixed": true])
            let report = await BB47.outcome { try await c.sync(a, alice).dpRun() }
            #expect((try? report.get())?.pushedDocuments == 5, "\(report)")
            try await BB47.expectConverged(c.f, [("alice", a)], "after the rewrite")
        }
    }

    // Same, with a push of several batches: "A refusal rolls back the batch it is in (`batchSize` documents, one server
    // transaction: nothing of that batch is kept, not even its checkpoint), ends the push there, … Batches before it were
    // accepted, and stay". (The article first promised the whole push; it keeps the batch, as the server's atomicity rule says.)
    @Test func aRefusalRollsBackTheWholePushEvenOfSeveralBatches() async throws {
        try await BBChannels.with("bbchbatch") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            let a = try c.f.store("a")
            try a.docPut("first", ["owner": "alice"])
            _ = try await c.sync(a, alice) { $0.batchSize = 2 }.dpRun()
            for i in 0..<6 { try a.docPut("g\(i)", ["owner": "alice", "i": .integer(Int64(i))]) }
            try a.docPut("x", ["owner": "bob"])
            let serverBefore = try await BB47.serverLeaves(c.f)
            let checkpointsBefore = try await c.checkpoints()
            let result = await BB47.outcome { try await c.sync(a, alice) { $0.batchSize = 2 }.dpPush() }
            #expect(bbRefusal(result)?.document == "x", "\(result)")
            let serverAfter = try await BB47.serverLeaves(c.f)
            let checkpointsAfter = try await c.checkpoints()
            print("severalBatches: kept \(serverAfter.count - serverBefore.count) documents of the refused push")
            // g0…g5 went up in the three batches before x's; x's batch (x alone, the last) left nothing.
            #expect(Set(serverAfter.keys) == Set(serverBefore.keys).union((0..<6).map { "g\($0)" }), "\(serverAfter.keys.sorted())")
            #expect(serverAfter["x"] == nil, "the refused batch was kept")
            #expect(checkpointsAfter != checkpointsBefore, "the accepted batches' checkpoints did not move")
            // The next push starts at the refused batch: it is refused again, and nothing else moves.
            let again = await BB47.outcome { try await c.sync(a, alice) { $0.batchSize = 2 }.dpPush() }
            #expect(bbRefusal(again)?.document == "x", "\(again)")
            #expect(try await BB47.serverLeaves(c.f) == serverAfter)
            #expect(try await c.checkpoints() == checkpointsAfter)
        }
    }

    // "or given up with ``DocumentSync/discardLocalChanges(of:)``, which removes the local copy and pulls the server's version
    // back (where the replica may read it)" — and the pushes go on.
    @Test func discardingTheRefusedDocumentLetsThePushesGoOn() async throws {
        try await BBChannels.with("bbchdiscard") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(alice.user, "team", false)
            let o = try c.f.store("owner")
            try o.docPut("t1", ["channels": ["team"], "v": 1])
            try o.docPut("hidden", ["owner": "bob", "v": 1])
            try await c.seed(o)
            let a = try c.f.store("a")
            _ = try await c.sync(a, alice).dpRun()
            try a.docPut("t1", ["channels": ["team"], "v": "mine"])
            try a.docPut("hidden", ["owner": "alice", "v": "taken"])     // a document alice cannot read on the server
            try a.docPut("ok", ["owner": "alice"])
            let first = await BB47.outcome { try await c.sync(a, alice).dpPush() }
            let id = try #require(bbRefusal(first)?.document, "\(first)")
            #expect(["t1", "hidden"].contains(id))
            _ = try await c.sync(a, alice).discardLocalChanges(of: [id])
            let second = await BB47.outcome { try await c.sync(a, alice).dpPush() }
            let other = try #require(bbRefusal(second)?.document, "\(second)")
            #expect(other != id && ["t1", "hidden"].contains(other))
            _ = try await c.sync(a, alice).discardLocalChanges(of: [other])
            let third = await BB47.outcome { try await c.sync(a, alice).dpRun() }
            #expect((try? third.get()) != nil, "\(third)")
            #expect(try a.docBody("t1") == ["channels": ["team"], "v": 1], "the readable document came back as the server has it")
            #expect(try a.docBody("hidden") == nil && (try a.branches(of: "hidden")).isEmpty, "the unreadable document is gone")
            #expect(try await c.f.count("S.documents WHERE id = 'ok'") == 1)
            #expect(try await c.f.value("SELECT body FROM S.revisions r JOIN S.documents d ON d.id = r.document AND r.revision = d.winner WHERE d.id = 'hidden'")?.contains("bob") == true)
        }
    }

    // "Checkpoints belong to the login role that wrote them first; no other role reads or replaces them."
    @Test func checkpointsBelongToTheirFirstWriter() async throws {
        try await BBChannels.with("bbchckpt") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(bob.user, "alice", true)
            let a = try c.f.store("a")
            try a.docPut("a1", ["owner": "alice"])
            _ = try await c.sync(a, alice).dpRun()
            let mine = try await c.checkpoints()
            #expect(!mine.isEmpty && mine.allSatisfy { $0[3] == alice.user }, "\(mine)")
            let replication = try #require(mine.first?[0] ?? nil)
            // By SQL, as bob.
            for direction in ["push", "pull"] {
                let read = await c.asRole("SELECT S.checkpoint_get('\(replication)', '\(direction)')", bob)
                if case .success(let rows) = read {
                    #expect(rows.allSatisfy { $0.allSatisfy { $0 == nil || $0 == "" } }, "bob read alice's \(direction) checkpoint: \(rows)")
                }
                _ = await c.asRole("SELECT S.checkpoint_set('\(replication)', '\(direction)', 'bob was here')", bob)
            }
            #expect(try await c.checkpoints() == mine, "bob replaced alice's checkpoint")
            // Bob replicating alice's very store (so the same replication): alice's rows stay hers.
            let asBob = await BB47.outcome { try await c.sync(a, bob).dpRun() }
            print("checkpoints: bob replicating alice's store: \(asBob)")
            let after = try await c.checkpoints()
            for row in mine {
                let now = after.first { $0[0] == row[0] }
                #expect(now?[3] == alice.user, "alice's checkpoint \(row[0] ?? "") changed owner: \(String(describing: now))")
            }
            // Bob's own checkpoints are his.
            let b = try c.f.store("b")
            _ = try await c.sync(b, bob).dpRun()
            #expect(try await c.f.count("S.checkpoints WHERE owner = '\(bob.user)'") >= 1)
            #expect(try await c.f.count("S.checkpoints WHERE owner IS NULL") == 0)
        }
    }

    // "Purging expired tombstones takes a write grant on `*`: for any other role, the purge a replicator asks for at the end
    // of its pull does nothing." + "`('admin', '*', true); -- every channel: what purging old tombstones needs`"
    @Test func purgingNeedsAWriteGrantOnStar() async throws {
        try await BBChannels.with("bbchpurge") { c in
            let alice = try await c.login("alice"), reader = try await c.login("starreader"), admin = try await c.login("admin")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(alice.user, "team", true)
            try await c.grant(reader.user, "*", false)
            try await c.grant(admin.user, "*", true)
            let a = try c.f.store("a")
            try a.docPut("a1", ["owner": "alice"])
            try a.docPut("t1", ["channels": ["team"]])
            _ = try await c.sync(a, alice).dpRun()
            try a.docRemove("a1")
            try a.docRemove("t1")
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(a, alice) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await c.f.count("S.documents WHERE deleted") == 2, "a role without `*` purged")
            #expect(try await c.f.count("S.purges") == 0, "a role without `*` purged")
            let direct = await c.asRole("SELECT S.purge_tombstones(0)", alice)
            #expect(try await c.f.count("S.purges") == 0, "purge_tombstones as alice: \(direct)")
            let r = try c.f.store("reader")
            _ = try await c.sync(r, reader) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await c.f.count("S.purges") == 0, "a read-only `*` purged")
            let d = try c.f.store("admin")
            _ = try await c.sync(d, admin) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await c.f.count("S.documents WHERE deleted") == 0, "a writable `*` did not purge")
            #expect(try await c.f.count("S.purges") == 2, "a writable `*` did not purge")
            _ = try await c.sync(a, alice).dpRun()
            #expect(try BBChannels.ids(a).isEmpty, "alice kept purged tombstones: \(BBChannels.show(a))")
        }
    }

    // "A document that leaves a replica's channels (its new body is in channels the replica does not read) gets a removal
    // record in the feed: the replica's next pull removes its copy" + "In both cases a copy that holds changes not pushed yet
    // stays, and its push is refused and reported as above" + "Removal records stay. One row per document that left
    // channels; they are not purged yet."
    @Test func aDocumentLeavingChannelsLeavesReadersAndUnpushedCopiesStay() async throws {
        try await BBChannels.with("bbchleave") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob"), carol = try await c.login("carol"),
                admin = try await c.login("admin")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(alice.user, "team", true)
            try await c.grant(bob.user, "team", false)
            try await c.grant(carol.user, "team", true)
            try await c.grant(admin.user, "*", true)
            let a = try c.f.store("a"), b = try c.f.store("b"), cs = try c.f.store("c")
            try a.docPut("t1", ["channels": ["team"], "v": 1])
            try a.docPut("t2", ["channels": ["team"], "v": 1])
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            _ = try await c.sync(cs, carol).dpRun()
            #expect(try BBChannels.ids(b) == ["t1", "t2"] && (try BBChannels.ids(cs)) == ["t1", "t2"])
            try cs.docPut("t2", ["channels": ["team"], "v": "carol, not pushed"])
            try a.docPut("t1", ["owner": "alice", "v": 2])          // leaves team
            try a.docPut("t2", ["owner": "alice", "v": 2])
            _ = try await c.sync(a, alice).dpRun()
            #expect(try await c.f.count("S.removals") >= 2, "no removal records")
            _ = try await c.sync(b, bob).dpPull()
            #expect(try BBChannels.ids(b).isEmpty, "bob's copies of documents that left his channels: \(BBChannels.show(b))")
            let pulled = await BB47.outcome { try await c.sync(cs, carol).dpPull() }
            #expect((try? pulled.get()) != nil, "\(pulled)")
            #expect(try BBChannels.ids(cs) == ["t2"], "carol's store: \(BBChannels.show(cs))")
            #expect(try cs.docBody("t2") == ["channels": ["team"], "v": "carol, not pushed"], "carol's unpushed change was dropped")
            let pushed = await BB47.outcome { try await c.sync(cs, carol).dpPush() }
            #expect(bbRefusal(pushed)?.document == "t2", "carol's push of a document she may no longer write: \(pushed)")
            #expect(try cs.docBody("t2") == ["channels": ["team"], "v": "carol, not pushed"])
            // Removal records stay, even through a purge.
            let removals = try await c.f.count("S.removals")
            try a.docRemove("t1")
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(try c.f.store("admin"), admin) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await c.f.count("S.purges") == 1)
            #expect(try await c.f.count("S.removals") == removals, "removal records were purged")
        }
    }

    // "A grant added or revoked (a `channel_grants` row …) changes the replica's readable channels; its next pull notices
    // (`access_epoch()`) and starts over from the beginning of the feed, bringing what it may now read, older documents
    // included, and removing its copies of what it may no longer read." + unpushed copies stay and are refused.
    @Test func aChangedGrantRowBringsOlderDocumentsAndRemovesUnreadableOnes() async throws {
        try await BBChannels.with("bbchgrant") { c in
            let bob = try await c.login("bob")
            try await c.grant(bob.user, "team", true)
            let o = try c.f.store("owner")
            try o.docPut("s-old", ["channels": ["sales"], "v": 1])      // older than anything bob pulls
            try o.docPut("t1", ["channels": ["team"]])
            try o.docPut("t2", ["channels": ["team"]])
            try await c.seed(o)
            let b = try c.f.store("b")
            _ = try await c.sync(b, bob).dpRun()
            try o.docPut("t3", ["channels": ["team"]])
            try await c.seed(o)
            _ = try await c.sync(b, bob).dpRun()
            #expect(try BBChannels.ids(b) == ["t1", "t2", "t3"])
            let epoch = await c.asRole("SELECT S.access_epoch()", bob)
            try b.docPut("t2", ["channels": ["team"], "v": "bob, not pushed"])
            _ = try await c.f.sql("DELETE FROM S.channel_grants WHERE role = '\(bob.user)'")
            _ = try await c.f.sql("INSERT INTO S.channel_grants VALUES ('\(bob.user)', 'sales', false)")
            let epochAfter = await c.asRole("SELECT S.access_epoch()", bob)
            #expect(BBChannels.state(epoch) == nil && (try? epoch.get()) != (try? epochAfter.get()), "access_epoch(): \(epoch) then \(epochAfter)")
            let pulled = await BB47.outcome { try await c.sync(b, bob).dpPull() }
            print("grantRow: pull after the grant changed: \(pulled)")
            #expect((try? pulled.get()) != nil)
            #expect(try BBChannels.ids(b) == ["s-old", "t2"], "bob's store after the grant changed: \(BBChannels.show(b))")
            #expect(try b.docBody("s-old") == ["channels": ["sales"], "v": 1])
            #expect(try b.docBody("t2") == ["channels": ["team"], "v": "bob, not pushed"], "bob's unpushed change was dropped")
            let pushed = await BB47.outcome { try await c.sync(b, bob).dpPush() }
            #expect(bbRefusal(pushed)?.document == "t2", "\(pushed)")
        }
    }

    // "(… or a role joining or leaving a group role that holds one) changes the replica's readable channels; its next pull
    // notices … bringing what it may now read, older documents included, and removing its copies of what it may no longer read."
    @Test func joiningOrLeavingAGroupRoleChangesWhatTheNextPullBrings() async throws {
        try await BBChannels.with("bbchjoin") { c in
            let dave = try await c.login("dave")
            let sales = try await c.groupRole("salesg"), team = try await c.groupRole("teamg")
            try await c.grant(sales, "sales", false)
            try await c.grant(team, "team", true)
            _ = try await c.f.sql("GRANT \"\(team)\" TO \"\(dave.user)\"")
            let o = try c.f.store("owner")
            try o.docPut("s-old", ["channels": ["sales"]])
            try o.docPut("t1", ["channels": ["team"]])
            try o.docPut("t2", ["channels": ["team"]])
            try await c.seed(o)
            let d = try c.f.store("d")
            _ = try await c.sync(d, dave).dpRun()
            try o.docPut("t3", ["channels": ["team"]])
            try await c.seed(o)
            _ = try await c.sync(d, dave).dpRun()
            #expect(try BBChannels.ids(d) == ["t1", "t2", "t3"])
            try d.docPut("t1", ["channels": ["team"], "v": "dave, not pushed"])
            _ = try await c.f.sql("REVOKE \"\(team)\" FROM \"\(dave.user)\"")
            _ = try await c.f.sql("GRANT \"\(sales)\" TO \"\(dave.user)\"")
            _ = await BB47.outcome { try await c.sync(d, dave).dpPull() }
            #expect(try BBChannels.ids(d) == ["s-old", "t1"], "dave's store after changing groups: \(BBChannels.show(d))")
            #expect(try d.docBody("t1") == ["channels": ["team"], "v": "dave, not pushed"], "dave's unpushed change was dropped")
            let pushed = await BB47.outcome { try await c.sync(d, dave).dpPush() }
            #expect(bbRefusal(pushed)?.document == "t1", "\(pushed)")
            // Membership of a group alone (no row changed) is noticed too: back into team.
            _ = try await c.sync(d, dave).discardLocalChanges(of: ["t1"])
            _ = try await c.f.sql("GRANT \"\(team)\" TO \"\(dave.user)\"")
            _ = await BB47.outcome { try await c.sync(d, dave).dpRun() }
            #expect(try BBChannels.ids(d) == ["s-old", "t1", "t2", "t3"], "dave's store after joining team again: \(BBChannels.show(d))")
        }
    }

    // "The script can run again: it replaces the functions and settings and keeps the grants."
    @Test func theAccessScriptRunsAgainKeepingGrantsAndReplacingSettings() async throws {
        try await BBChannels.with("bbchagain") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", true)
            let a = try c.f.store("a")
            try a.docPut("a1", ["owner": "alice", "p": .string(String(repeating: "x", count: 3000))])
            _ = try await c.sync(a, alice).dpRun()
            try await c.access(bodyLimit: 2000)
            #expect(try await c.f.sql("SELECT role::text, channel, writable::text FROM S.channel_grants") == [[alice.user, "alice", "true"]])
            try a.docPut("a2", ["owner": "alice", "p": "small"])
            #expect(try await c.sync(a, alice).dpRun().pushedDocuments == 1, "alice lost her grants")
            try a.docPut("a3", ["owner": "alice", "p": .string(String(repeating: "x", count: 3000))])
            let big = await BB47.outcome { try await c.sync(a, alice).dpPush() }
            #expect(bbRefusal(big)?.document == "a3", "the new body limit does not act: \(big)")
            _ = try await c.sync(a, alice).discardLocalChanges(of: ["a3"])
            // And once more with the defaults, and a role made earlier still replicates.
            try await c.access()
            try a.docPut("a3", ["owner": "alice", "p": .string(String(repeating: "x", count: 3000))])
            let again = await BB47.outcome { try await c.sync(a, alice).dpRun() }
            #expect((try? again.get()) != nil, "\(again)")
            #expect(try await c.f.count("S.channel_grants") == 1)
        }
    }

    // "Existing documents get their channels when it runs." + "or, from code, ``DocumentSync/accessScript(schema:channelFields:bodyLimit:)``,
    // which also takes other channel fields"
    @Test func existingDocumentsGetChannelsAndCustomFieldsReplaceTheDefaults() async throws {
        try await BBChannels.with("bbchexist", access: false) { c in
            let o = try c.f.store("owner")
            try o.docPut("e1", ["tenant": "acme", "owner": "alice"])
            try o.docPut("e2", ["owner": "alice"])
            try o.docPut("e3", ["tenant": ["acme", "globex"]])
            try o.docPut("gone", ["tenant": "acme"])
            _ = try await c.ownerSync(o).dpRun()
            try o.docRemove("gone")
            _ = try await c.ownerSync(o).dpRun()
            try await c.access(channelFields: ["tenant"])
            #expect(try await c.channels("e1") == ["acme"])
            #expect(try await c.channels("e2") == [], "the default fields still count with channelFields [tenant]")
            #expect(try await c.channels("e3") == ["acme", "globex"])
            // "a document already deleted then has no body left to read them from, so it is in no channel, and only replicas
            // granted `*` receive its deletion"
            let goneChannels = try await c.channels("gone")
            #expect(goneChannels == [], "a tombstone made before the script: \(String(describing: goneChannels))")
            let acme = try await c.login("acme")
            try await c.grant(acme.user, "acme", true)
            let s = try c.f.store("acme")
            _ = try await c.sync(s, acme).dpRun()
            let held = try BBChannels.ids(s)
            #expect(held.isSuperset(of: ["e1", "e3"]) && !held.contains("e2"), "\(held)")
            #expect(!held.contains("gone"), "a tombstone made before the script reached a reader without *: \(held)")
            try s.docPut("e4", ["tenant": "acme"])
            try s.docPut("e1", ["tenant": "acme", "owner": "alice", "v": 2])
            #expect(try await c.sync(s, acme).dpRun().pushedDocuments == 2)
            try s.docPut("e5", ["owner": "acme"])                  // not a channel field any more: no channel
            let refused = await BB47.outcome { try await c.sync(s, acme).dpPush() }
            #expect(bbRefusal(refused)?.document == "e5", "\(refused)")
        }
    }

    // "To compute channels another way, replace `document_channels(body text) RETURNS text[]` in the schema with a function
    // of your own (`IMMUTABLE`, same signature, owned by the schema's owner), then update the existing rows"
    @Test func aCustomDocumentChannelsFunctionDecides() async throws {
        try await BBChannels.with("bbchcustom") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "region-eu", true)
            let o = try c.f.store("owner")
            try o.docPut("c1", ["region": "eu"])
            try o.docPut("c2", ["region": "us"])
            try await c.seed(o)
            _ = try await c.f.sql("""
                CREATE OR REPLACE FUNCTION S.document_channels(body text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE
                SET search_path = pg_catalog, pg_temp
                AS $$ DECLARE j jsonb; BEGIN
                    j := body::jsonb;
                    IF jsonb_typeof(j) = 'object' AND j ? 'region' THEN RETURN ARRAY['region-' || (j ->> 'region')]; END IF;
                    RETURN ARRAY[]::text[];
                EXCEPTION WHEN others THEN RETURN ARRAY[]::text[]; END $$
                """)
            _ = try await c.f.sql("""
                UPDATE S.documents AS d SET channels = S.document_channels(r.body)
                FROM S.revisions AS r WHERE r.document = d.id AND r.revision = d.winner
                """)
            #expect(try await c.channels("c1") == ["region-eu"])
            let a = try c.f.store("a")
            _ = try await c.sync(a, alice).dpRun()
            #expect(try BBChannels.ids(a) == ["c1"])
            try a.docPut("c3", ["region": "eu"])
            #expect(try await c.sync(a, alice).dpRun().pushedDocuments == 1)
            #expect(try await c.channels("c3") == ["region-eu"])
            try a.docPut("c4", ["region": "us"])
            let refused = await BB47.outcome { try await c.sync(a, alice).dpPush() }
            #expect(bbRefusal(refused)?.document == "c4", "\(refused)")
        }
    }

    // Limits: "a person with a replica's password can call `insert_leaves` inside a transaction and leave it open, stalling
    // every other push. Bound it on the server: set `idle_in_transaction_session_timeout` … for the replica roles with
    // `ALTER ROLE`" + "a role can lift its own setting within its session" + "`NOTIFY` is open to every role."
    @Test func anOpenTransactionStallsPushesUntilTheIdleTimeoutEndsIt() async throws {
        try await BBChannels.with("bbchstall") { c in
            let mallory = try await c.login("mallory"), bob = try await c.login("bob")
            try await c.grant(mallory.user, "m", true)
            try await c.grant(bob.user, "bob", true)
            _ = try await c.f.sql("ALTER ROLE \"\(mallory.user)\" SET idle_in_transaction_session_timeout = '1500ms'")
            let logger = Logger(label: "bbchannels")
            let connection = try await PostgresConnection.connect(
                configuration: .init(host: mallory.host, port: mallory.port, username: mallory.user, password: mallory.password,
                                     database: mallory.database, tls: .disable), id: 7, logger: logger)
            defer { Task { try? await connection.close() } }
            _ = try await connection.query("BEGIN", logger: logger)
            let leaf = BBChannels.leaf("m1", #"{"owner":"m"}"#).replacingOccurrences(of: "S.", with: "\"\(c.schema)\".")
            _ = try await connection.query(PostgresQuery(unsafeSQL: leaf), logger: logger)
            let b = try c.f.store("b")
            try b.docPut("b1", ["owner": "bob"])
            let start = ContinuousClock.now
            let pushed = await BB47.outcome { try await c.sync(b, bob).dpPush(.seconds(15)) }
            let waited = ContinuousClock.now - start
            print("stall: bob's push took \(waited): \(pushed)")
            #expect((try? pushed.get())?.pushedDocuments == 1, "\(pushed)")
            #expect(waited >= .milliseconds(800), "bob's push was not stalled by the open transaction (\(waited))")
            #expect(try await c.f.count("S.documents WHERE id = 'm1'") == 0, "the open transaction's leaf was kept")
            // The role lifts its own setting; NOTIFY is open to it.
            #expect(BBChannels.state(await c.asRole("SET idle_in_transaction_session_timeout = 0", mallory)) == nil)
            #expect(BBChannels.state(await c.asRole("SELECT pg_notify('\(c.schema)', 'hello')", mallory)) == nil)
        }
    }

    // Limits: "Filtering costs reads. A feed page of a user with few channels among many documents reads past the documents it
    // may not see." — it still finds its own, page after page.
    @Test func aFewReadableDocumentsAmongManyArriveWithSmallPages() async throws {
        try await BBChannels.with("bbchfew") { c in
            let alice = try await c.login("alice")
            try await c.grant(alice.user, "alice", false)
            let o = try c.f.store("owner")
            for i in 0..<60 { try o.docPut("n\(i)", ["owner": i % 20 == 7 ? "alice" : "other"]) }
            try await c.seed(o)
            let a = try c.f.store("a")
            _ = try await c.sync(a, alice) { $0.batchSize = 2 }.dpRun()
            #expect(try BBChannels.ids(a) == ["n7", "n27", "n47"], "\(BBChannels.show(a))")
        }
    }

    // "the caller has a write grant on every channel the document is in now and on every channel its new body puts it in (so
    // neither … nor moving one's own into a channel one may not write, goes through)" + "The channel `*` stands for every
    // channel, and for documents in none" — moving one's own document into no channel needs `*`, as creating one there does.
    @Test func movingOnesOwnDocumentIntoNoChannelNeedsStar() async throws {
        try await BBChannels.with("bbchmovenone") { c in
            let bob = try await c.login("bob")
            try await c.grant(bob.user, "bob", true)
            let b = try c.f.store("b")
            try b.docPut("b1", ["owner": "bob", "v": 1])
            _ = try await c.sync(b, bob).dpRun()
            try b.docPut("fresh", ["text": "none"])
            let created = await BB47.outcome { try await c.sync(b, bob).dpPush() }
            #expect(bbRefusal(created)?.document == "fresh", "creating a document in no channel without `*`: \(created)")
            _ = try await c.sync(b, bob).discardLocalChanges(of: ["fresh"])
            try b.docPut("b1", ["text": "none"])
            let moved = await BB47.outcome { try await c.sync(b, bob).dpPush() }
            print("moveIntoNone: \(moved)")
            #expect(bbRefusal(moved)?.document == "b1", "bob moved his document into no channel without `*`: \(moved)")
        }
    }

    // "or given up with ``DocumentSync/discardLocalChanges(of:)``, which removes the local copy and pulls the server's
    // version back (where the replica may read it)" + "nothing of the replica's own work is dropped silently": discarding
    // a document the replica can no longer read must not lose its other, later changes.
    @Test func discardingAnUnreadableDocumentKeepsLaterChangesPushable() async throws {
        try await BBChannels.with("bbchdiscard2") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(bob.user, "bob", true)
            try await c.grant(bob.user, "alice", false)
            let a = try c.f.store("a"), b = try c.f.store("b")
            try a.docPut("a1", ["owner": "alice", "v": 1])
            try b.docPut("b1", ["owner": "bob", "v": 1])
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            try b.docPut("a1", ["owner": "alice", "v": "bob"])
            #expect(bbRefusal(await BB47.outcome { try await c.sync(b, bob).dpPush() })?.document == "a1")
            _ = try await c.sync(b, bob).discardLocalChanges(of: ["a1"])
            // b1 leaves bob's channels (refused, see movingOnesOwnDocumentIntoNoChannelNeedsStar), then bob discards it.
            // (With the move accepted, as it was, the discard removed bob's last feed position, and SQLite gave n1 that
            // position again, behind the push checkpoint: SequenceAfterPurgeTests.)
            try b.docPut("b1", ["text": "none"])
            _ = await BB47.outcome { try await c.sync(b, bob).dpPush() }
            _ = await BB47.outcome { try await c.sync(b, bob).discardLocalChanges(of: ["b1"]) }
            try b.docPut("n1", ["owner": "bob", "x": 1])
            let pushed = await BB47.outcome { try await c.sync(b, bob).dpPush() }
            try b.docPut("n2", ["owner": "bob", "x": 2])
            _ = await BB47.outcome { try await c.sync(b, bob).dpRun() }
            print("discardUnreadable: push of n1 after discarding b1: \(pushed)")
            let server = Set(try await BB47.serverLeaves(c.f).keys)
            #expect(server.contains("n2"))
            #expect(server.contains("n1"), "bob's new document n1 never reached the server: \(server.sorted())")
        }
    }

    // Table: "the schema's owner, by SQL | all", and "A replicator always goes through the functions, the owner's too: it
    // replicates the channels its role is granted (a superuser counts as a member of every role, so it gets every role's
    // grants), so grant the owner … `*` to replicate everything."
    @Test func theSchemasOwnerSeesAll() async throws {
        try await BBChannels.with("bbchowner") { c in
            let alice = try await c.login("alice"), bob = try await c.login("bob")
            try await c.grant(alice.user, "alice", true)
            try await c.grant(bob.user, "bob", true)
            let a = try c.f.store("a"), b = try c.f.store("b"), o = try c.f.store("owner")
            try a.docPut("a1", ["owner": "alice"])
            try b.docPut("b1", ["owner": "bob"])
            _ = try await c.sync(a, alice).dpRun()
            _ = try await c.sync(b, bob).dpRun()
            let pulled = await BB47.outcome { try await c.ownerSync(o).dpPull() }
            #expect((try? pulled.get()) != nil, "\(pulled)")
            #expect(try BBChannels.ids(o) == ["a1", "b1"], "the owner's replica holds \(BBChannels.show(o))")
            try o.docPut("o1", ["owner": "carol"])
            let pushed = await BB47.outcome { try await c.ownerSync(o).dpPush() }
            print("ownerSeesAll: the owner's push with no `*` grant anywhere: \(pushed)")
            // A document in a channel no role holds any more: the owner still sees all.
            _ = try await c.f.sql("DELETE FROM S.channel_grants WHERE role = '\(alice.user)'")
            let fresh = try c.f.store("owner-fresh")
            let again = await BB47.outcome { try await c.ownerSync(fresh).dpPull() }
            print("ownerSeesAll: a fresh owner's pull after alice's grant was deleted: \(again)")
            let held = try BBChannels.ids(fresh)
            #expect(!held.contains("a1") && held.contains("b1"), "the owner's replicator gets every role's grants and no more: \(held)")
            // By SQL, the owner sees everything.
            #expect(try await c.f.count("S.documents WHERE id = 'a1'") == 1)
            // Granted `*`, its replicator replicates everything.
            _ = try await c.f.sql("INSERT INTO S.channel_grants VALUES (current_user, '*', true)")
            let all = try c.f.store("owner-star")
            _ = try await c.ownerSync(all).dpPull()
            #expect(try BBChannels.ids(all).isSuperset(of: ["a1", "b1"]), "\(BBChannels.show(all))")
        }
    }
}
