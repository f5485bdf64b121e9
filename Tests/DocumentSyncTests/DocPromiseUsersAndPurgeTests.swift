// Black-box tests of issue 47's promises (UsersAndConnections.md, WhatReplicates.md's tombstone/purge
// paragraph and "A server that lost a push checkpoint"), written without reading the implementation.
// Each test quotes the sentence it checks. Roles are cluster-wide: each gets a random suffix and is dropped.
import DocumentStore
import DocumentSync
import Foundation
import Testing
import TestSupport

// MARK: - Support

enum BB47 {
    static let bin = ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"

    static func suffix() -> String { String(UInt32.random(in: 0...UInt32.max), radix: 36) }

    /// Runs a script through psql as the address's role, as a DBA would.
    static func psql(_ script: String, address: PostgresAddress, in folder: TemporaryFolder) async throws {
        let file = folder.file("bb47-script-\(UInt32.random(in: 0...UInt32.max)).sql")
        try script.write(to: file, atomically: false, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = address.resolvedPassword() ?? ""
        let child = try ChildProcess.start(URL(fileURLWithPath: bin + "/psql"),
                                           ["-h", address.host, "-p", "\(address.port)", "-U", address.user, "-d", address.database,
                                            "-v", "ON_ERROR_STOP=1", "-q", "-f", file.path], environment: environment)
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        guard end == .exited(0) else { throw child.error("psql -f \(file.lastPathComponent) ended with \(end)") }
    }

    static func openssl(_ arguments: [String], in folder: URL) async throws {
        let child = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"),
                                           ["-c", "cd \"$0\" && exec openssl \"$@\"", folder.path] + arguments)
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        guard end == .exited(0) else { throw child.error("openssl \(arguments.first ?? "") ended with \(end)") }
    }

    static func giveToServer(_ path: String, like folder: String) throws {
        let owner = try FileManager.default.attributesOfItem(atPath: folder)
        try FileManager.default.setAttributes([.ownerAccountID: owner[.ownerAccountID] as Any,
                                               .groupOwnerAccountID: owner[.groupOwnerAccountID] as Any,
                                               .posixPermissions: 0o600], ofItemAtPath: path)
    }

    static func dropRoles(_ roles: [String], _ f: DocPromiseFixture) async {
        for role in roles {
            _ = try? await f.sql("DROP OWNED BY \"\(role)\"")
            _ = try? await f.sql("DROP ROLE IF EXISTS \"\(role)\"")
        }
    }

    /// A store of a test's own folder (for tests on a cluster of their own).
    static func store(_ folder: TemporaryFolder, _ name: String) throws -> Persistence {
        var configuration = PersistenceConfiguration(url: folder.file("\(name).sqlite"))
        configuration.busyTimeout = .seconds(2)
        let persistence = try Persistence(configuration: configuration)
        persistence.register(persistableKind: DocPromiseNote.self)
        persistence.register(persistableKind: DocPromiseOther.self)
        return persistence
    }

    /// What a step ended with.
    static func outcome(_ body: () async throws -> DocumentSync.Report) async -> Result<DocumentSync.Report, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func sqlState(_ result: Result<DocumentSync.Report, any Error>) -> String? {
        if case .failure(let error) = result, let sync = error as? DocumentSyncError, case .server(let state, _) = sync { return state }
        return nil
    }

    /// The server's leaves of every document (of `kinds` when given), as `revision` or `revision deleted`, sorted.
    static func serverLeaves(_ f: DocPromiseFixture, kinds: Set<String>? = nil) async throws -> [String: [String]] {
        try await serverLeaves(schema: f.schema, address: f.address, kinds: kinds)
    }

    static func serverLeaves(schema: String, address: PostgresAddress, kinds: Set<String>? = nil) async throws -> [String: [String]] {
        var filter = ""
        if let kinds { filter = " AND d.kind IN (" + kinds.map { "'\($0)'" }.joined(separator: ",") + ")" }
        let rows = try await DocPromiseFixture.sql("""
            SELECT r.document, r.revision, r.deleted::text FROM "\(schema)".revisions r JOIN "\(schema)".documents d ON d.id = r.document
            WHERE r.leaf\(filter)
            """, address: address)
        var leaves: [String: [String]] = [:]
        for row in rows { leaves[row[0]!, default: []].append(row[1]! + (row[2] == "true" ? " deleted" : "")) }
        return leaves.mapValues { $0.sorted() }
    }

    /// Expects every store to hold exactly the server's leaves (of its kinds).
    static func expectConverged(_ f: DocPromiseFixture, _ stores: [(String, Persistence)], _ context: String,
                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let server = try await serverLeaves(f)
        for (name, store) in stores {
            let local = try store.allLeaves()
            #expect(local == server, "\(context): \(name) differs from the server: only local \(local.filter { server[$0.key] != $0.value }), only server \(server.filter { local[$0.key] != $0.value })",
                    sourceLocation: sourceLocation)
        }
        #expect(try await f.winnerMismatches().isEmpty, "\(context): documents rows disagree with winner()", sourceLocation: sourceLocation)
    }

    /// The count of log lines of `log` that contain `text`.
    static func logCount(_ log: String, _ text: String) -> Int {
        guard let data = FileManager.default.contents(atPath: log) else { return -1 }
        return String(decoding: data, as: UTF8.self).components(separatedBy: "\n").filter { $0.contains(text) }.count
    }
}

/// A small, seedable generator (SplitMix64) so a random run can be replayed from its printed seed.
struct BB47Random: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Persistence {
    func bbRemoveOther(_ id: String) throws {
        if let other = try load(DocPromiseOther.self, id) { try delete(other) }
    }
}

// MARK: - Users and connections

@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct DocPromiseUsersAndPurgeTests {

    // UsersAndConnections.md: "The script makes the group role `<schema>_replica` the first time (granted what a
    // replicator uses), and the login role as a member of it, without a password. Replicators of such roles run
    // with `createSchema = false`: they cannot create or change the schema." … "What the group may do today: read
    // and write every row of the schema, so every member sees every document."
    @Test func twoScriptedRolesShareEverythingPurgeAndCannotChangeTheSchema() async throws {
        try await DocPromiseFixture.with("bbusers") { f in
            let s = BB47.suffix()
            let alice = "alice_\(s)", bob = "bob_\(s)", group = "\(f.schema)_replica"
            let owner = try f.store("owner")
            try owner.docPut("shared", ["from": "owner"])
            _ = try await f.sync(owner).dpRun()
            do {
                // The second script finds the group made and must still run.
                try await BB47.psql(try DocumentSync.userScript(user: alice, schema: f.schema), address: f.address, in: f.folder)
                try await BB47.psql(try DocumentSync.userScript(user: bob, schema: f.schema), address: f.address, in: f.folder)
                #expect(try await f.count("pg_roles WHERE rolname = '\(group)'") == 1)
                for role in [alice, bob] {
                    let row = try await f.sql("""
                        SELECT rolcanlogin::text, rolsuper::text, rolcreaterole::text, rolcreatedb::text, (rolpassword IS NULL)::text,
                               pg_has_role('\(role)', '\(group)', 'member')::text
                        FROM pg_authid WHERE rolname = '\(role)'
                        """)
                    #expect(row == [["true", "false", "false", "false", "true", "true"]], "\(role): login, not super, no password, member: \(row)")
                }
                _ = try await f.sql("ALTER ROLE \"\(alice)\" PASSWORD 'alice-secret-\(s)'")
                _ = try await f.sql("ALTER ROLE \"\(bob)\" PASSWORD 'bob-secret-\(s)'")
                var aliceAddress = f.address, bobAddress = f.address
                aliceAddress.user = alice
                aliceAddress.password = "alice-secret-\(s)"
                bobAddress.user = bob
                bobAddress.password = "bob-secret-\(s)"
                let a = try f.store("alice"), b = try f.store("bob")
                func syncA() throws -> DocumentSync { try f.sync(a) { $0.address = aliceAddress; $0.createSchema = false } }
                func syncB() throws -> DocumentSync { try f.sync(b) { $0.address = bobAddress; $0.createSchema = false } }

                try a.docPut("a1", ["by": "alice"])
                try b.docPut("b1", ["by": "bob"])
                _ = try await syncA().dpRun()
                _ = try await syncB().dpRun()
                _ = try await syncA().dpRun()
                #expect(try a.docBody("b1") == ["by": "bob"], "alice does not see bob's document")
                #expect(try b.docBody("a1") == ["by": "alice"], "bob does not see alice's document")
                #expect(try b.docBody("shared") == ["from": "owner"])
                // Every row: alice deletes bob's document, bob edits alice's.
                try a.docRemove("b1")
                try b.docPut("a1", ["by": "bob now"])
                _ = try await syncA().dpRun()
                _ = try await syncB().dpRun()
                _ = try await syncA().dpRun()
                #expect(try b.docBody("b1") == nil)
                #expect(try a.docBody("a1") == ["by": "bob now"])
                // A member's replicator purges expired tombstones too (what a replicator uses), and the other member follows.
                let purging = await BB47.outcome { try await f.sync(a) { $0.address = aliceAddress; $0.createSchema = false; $0.tombstoneRetention = .zero }.dpRun() }
                print("twoScriptedRoles: alice's purging run: \(purging)")
                #expect((try? purging.get()) != nil, "a member could not run with tombstoneRetention zero: \(purging)")
                #expect(try await f.count("S.documents WHERE id = 'b1'") == 0, "the member's run did not purge b1")
                #expect(try await f.count("S.purges WHERE id = 'b1'") == 1)
                let pulled = try await syncB().dpRun()
                #expect(try b.branches(of: "b1").isEmpty, "bob kept b1's tombstone: \(pulled)")
                _ = try await syncA().dpRun()                 // alice's own pull passes the purge record too
                try await BB47.expectConverged(f, [("alice", a), ("bob", b)], "members")

                // They cannot change the schema.
                for statement in ["CREATE TABLE S.intruder (x int)", "DROP TABLE S.documents", "ALTER TABLE S.documents ADD COLUMN x int",
                                  "DROP FUNCTION S.winner(text)", "CREATE OR REPLACE VIEW S.current_documents AS SELECT 1 AS x",
                                  "ALTER TABLE S.revisions DISABLE TRIGGER ALL"] {
                    do {
                        _ = try await DocPromiseFixture.sql(statement.replacingOccurrences(of: "S.", with: "\"\(f.schema)\"."), address: aliceAddress)
                        Issue.record("a member ran \(statement)")
                    } catch {
                        #expect("\(error)".contains("42501") || "\(error)".contains("must be owner"), "\(statement): \(error)")
                    }
                }
                #expect(try await f.count("S.documents") >= 2)
                // Nor create a schema of their own, even with createSchema left on.
                let other = "\(f.schema)_x"
                let store = try f.store("alice2")
                try store.docPut("x", ["v": 1])
                let created = await BB47.outcome { try await f.sync(store) { $0.address = aliceAddress; $0.schema = other }.dpRun() }
                print("twoScriptedRoles: alice creating \(other): \(created)")
                #expect((try? created.get()) == nil, "a member created a schema")
                #expect(try await f.count("pg_namespace WHERE nspname = '\(other)'") == 0)
                let missing = await BB47.outcome { try await f.sync(store) { $0.address = aliceAddress; $0.schema = other; $0.createSchema = false }.dpRun() }
                if case .failure(let error) = missing {
                    #expect(error as? DocumentSyncError == .serverSchemaMissing(schema: other), "\(error)")
                } else { Issue.record("ran on a missing schema: \(missing)") }
                _ = try? await f.sql("DROP SCHEMA IF EXISTS \"\(other)\" CASCADE")
            } catch {
                await BB47.dropRoles([alice, bob, group], f)
                throw error
            }
            await BB47.dropRoles([alice, bob, group], f)
        }
    }

    // UsersAndConnections.md: "a lost device then loses only its own login (`ALTER ROLE … NOLOGIN`, or `DROP ROLE`)"
    // and "A role outside the group is refused at its first statement, with `server(sqlState:message:)` and SQL state
    // `42501`, and its local store is left as it was." — here a member removed from the group (REVOKE), on push(),
    // pull() and run(), with changes of its own and others' waiting; taken back, it loses nothing.
    @Test func aRevokedOrDisabledMemberIsRefusedItsStoreUnchangedAndOthersGoOn() async throws {
        try await DocPromiseFixture.with("bbrevoke") { f in
            let s = BB47.suffix()
            let alice = "alice_\(s)", bob = "bob_\(s)", group = "\(f.schema)_replica"
            let owner = try f.store("owner")
            try owner.docPut("shared", ["v": 0])
            _ = try await f.sync(owner).dpRun()
            do {
                for role in [alice, bob] {
                    try await BB47.psql(try DocumentSync.userScript(user: role, schema: f.schema), address: f.address, in: f.folder)
                    _ = try await f.sql("ALTER ROLE \"\(role)\" PASSWORD 'pw-\(role)'")
                }
                var aliceAddress = f.address, bobAddress = f.address
                aliceAddress.user = alice
                aliceAddress.password = "pw-\(alice)"
                bobAddress.user = bob
                bobAddress.password = "pw-\(bob)"
                let a = try f.store("alice"), b = try f.store("bob")
                func syncA() throws -> DocumentSync { try f.sync(a) { $0.address = aliceAddress; $0.createSchema = false } }
                func syncB() throws -> DocumentSync { try f.sync(b) { $0.address = bobAddress; $0.createSchema = false } }
                try a.docPut("mine", ["v": 1])
                _ = try await syncA().dpRun()
                _ = try await syncB().dpRun()

                _ = try await f.sql("REVOKE \"\(group)\" FROM \"\(alice)\"")
                try a.docPut("mine", ["v": 2])
                try a.docPut("new", ["v": 1])
                try a.docRemove("shared")
                try b.docPut("frombob", ["v": 1])
                try b.docPut("mine", ["v": "bob's"])
                _ = try await syncB().dpRun()
                let before = try a.allLeaves()
                let serverBefore = try await BB47.serverLeaves(f)
                let checkpointsBefore = try await f.sql("SELECT replication, push, pull FROM S.checkpoints ORDER BY replication")
                for (what, step) in [("push()", { try await syncA().dpPush() }), ("pull()", { try await syncA().dpPull() }),
                                     ("run()", { try await syncA().dpRun() })] as [(String, () async throws -> DocumentSync.Report)] {
                    let result = await BB47.outcome(step)
                    print("aRevokedMember: \(what) after REVOKE: \(result)")
                    #expect(BB47.sqlState(result) == "42501", "\(what) of a member removed from the group: \(result)")
                    #expect(try a.allLeaves() == before, "\(what) changed the refused store")
                    #expect(try await BB47.serverLeaves(f) == serverBefore, "\(what) of a refused role changed the server")
                }
                #expect(try await f.sql("SELECT replication, push, pull FROM S.checkpoints ORDER BY replication") == checkpointsBefore)
                // The others go on.
                try b.docPut("frombob2", ["v": 1])
                #expect(try await syncB().dpRun().pushedDocuments == 1)

                // NOLOGIN: refused as well (whatever the error), nothing changes; bob goes on.
                _ = try await f.sql("GRANT \"\(group)\" TO \"\(alice)\"")
                _ = try await f.sql("ALTER ROLE \"\(alice)\" NOLOGIN")
                let nologin = await BB47.outcome { try await syncA().dpRun() }
                print("aRevokedMember: run() of a NOLOGIN role: \(nologin)")
                #expect((try? nologin.get()) == nil, "a NOLOGIN role replicated")
                if case .failure(let error) = nologin, let sync = error as? DocumentSyncError {
                    if case .authenticationFailed = sync {} else { print("aRevokedMember: NOLOGIN is not authenticationFailed: \(sync)") }
                }
                #expect(try a.allLeaves() == before)
                try b.docPut("frombob3", ["v": 1])
                #expect(try await syncB().dpRun().pushedDocuments == 1)

                // Let back in: every change alice made while refused goes up, and she gets what she missed.
                _ = try await f.sql("ALTER ROLE \"\(alice)\" LOGIN")
                _ = try await syncA().dpRun()
                _ = try await syncB().dpRun()
                _ = try await syncA().dpRun()
                #expect(try b.docBody("new") == ["v": 1])
                #expect(try b.docBody("shared") == nil)
                #expect(try a.docBody("frombob3") == ["v": 1])
                #expect(try a.docLiveLeaves("mine") >= 1)
                try await BB47.expectConverged(f, [("alice", a), ("bob", b)], "after the role is let back in")
            } catch {
                await BB47.dropRoles([alice, bob, group], f)
                throw error
            }
            await BB47.dropRoles([alice, bob, group], f)
        }
    }

    // UsersAndConnections.md: "What the group may do today: read and write every row of the schema" with
    // WhatReplicates.md: "`purges` came after the first release of schema version 1: a schema made before them gains
    // them the next time a replicator that may create the schema connects". A role scripted on such a schema must
    // go on replicating (createSchema off) once the owner's replicator added them.
    @Test func aMemberScriptedBeforeTheSchemaGainedPurgesStillReplicates() async throws {
        try await DocPromiseFixture.with("bbupgrade") { f in
            let s = BB47.suffix()
            let alice = "alice_\(s)", group = "\(f.schema)_replica"
            let owner = try f.store("owner")
            try owner.docPut("shared", ["v": 0])
            _ = try await f.sync(owner).dpRun()
            // The schema as the first release made it.
            _ = try await f.sql("DROP VIEW S.current_documents")
            _ = try await f.sql("DROP FUNCTION S.jsonb_or_null(text)")
            _ = try await f.sql("DROP TABLE S.purges")
            do {
                try await BB47.psql(try DocumentSync.userScript(user: alice, schema: f.schema), address: f.address, in: f.folder)
                _ = try await f.sql("ALTER ROLE \"\(alice)\" PASSWORD 'pw-\(alice)'")
                var aliceAddress = f.address
                aliceAddress.user = alice
                aliceAddress.password = "pw-\(alice)"
                let a = try f.store("alice")
                func syncA() throws -> DocumentSync { try f.sync(a) { $0.address = aliceAddress; $0.createSchema = false } }
                try a.docPut("a1", ["v": 1])
                try a.docPut("a2", ["v": 1])
                _ = try await syncA().dpRun()
                #expect(try a.docBody("shared") == ["v": 0])
                // The owner's replicator upgrades the schema.
                _ = try await f.sync(owner).dpRun()
                #expect(try await f.count("pg_tables WHERE schemaname = '\(f.schema)' AND tablename = 'purges'") == 1)
                try a.docPut("a3", ["v": 1])
                let after = await BB47.outcome { try await syncA().dpRun() }
                print("aMemberScriptedBefore: alice after the upgrade: \(after)")
                // Found by this test (42501 on purges: the upgrade did not grant it to <schema>_replica); fixed.
                #expect((try? after.get()) != nil, "a member scripted before the upgrade cannot replicate after it: \(after)")
                // The owner deletes and purges a2; alice's pull passes the purge record.
                try owner.docRemove("a2")
                _ = try await f.sync(owner).dpRun()
                _ = try await f.sync(owner) { $0.tombstoneRetention = .zero }.dpRun()
                let pulled = await BB47.outcome { try await syncA().dpRun() }
                print("aMemberScriptedBefore: alice's pull of the purge: \(pulled)")
                let kept = try a.branches(of: "a2")
                #expect(kept.isEmpty, "alice kept a2: \(pulled)")
            } catch {
                await BB47.dropRoles([alice, group], f)
                throw error
            }
            await BB47.dropRoles([alice, group], f)
        }
    }

    // UsersAndConnections.md TLS table: `.verifyCA` and `.verifyFull` encrypt "always"; a failed check is
    // `serverUnavailable`. The shared test server offers no TLS.
    @Test func verifyModesRefuseAServerWithoutTLSAndURLParametersParse() async throws {
        try await DocPromiseFixture.with("bbnotls") { f in
            for mode in [PostgresAddress.TLSMode.verifyCA, .verifyFull] {
                var address = f.address
                address.tls = mode
                let store = try f.store("s\(mode)")
                try store.docPut("d", ["v": 1])
                let result = await BB47.outcome { try await f.sync(store) { $0.address = address }.dpRun() }
                print("verifyModesRefuse: \(mode) against a server without TLS: \(result)")
                if case .failure(let error) = result, let sync = error as? DocumentSyncError, case .serverUnavailable = sync {} else {
                    Issue.record("\(mode) against a server without TLS: \(result)")
                }
                #expect(try store.docBody("d") == ["v": 1])
            }
            #expect(try await f.count("pg_namespace WHERE nspname = '\(f.schema)'") == 0, "a refused replicator created the schema")
        }
        // URL forms.
        let full = try PostgresAddress(url: "postgresql://bob@db.example.com:6543/app?sslmode=verify-ca&sslcert=/c.crt&sslkey=/c.key")
        #expect(full.tls == .verifyCA && full.clientCertificatePath == "/c.crt" && full.clientKeyPath == "/c.key" && full.rootCertificatePath == nil)
        #expect(full.port == 6543 && full.database == "app")
        #expect(full.description == "postgres://bob@db.example.com:6543/app")
        do {
            let allow = try PostgresAddress(url: "postgres://a@h/d?sslmode=allow")
            print("verifyModesRefuse: sslmode=allow gives \(allow.tls)")
        } catch {
            Issue.record("sslmode=allow, which the doc says is taken, was refused: \(error)")
        }
        do {
            _ = try PostgresAddress(url: "postgres://u:hunter2secret@h/d?application_name=x")
            Issue.record("an unknown query parameter was accepted")
        } catch {
            #expect(!"\(error)".contains("hunter2secret"), "the password shows in \(error)")
        }
    }

    // UsersAndConnections.md: the TLS table (`.prefer` checks the chain and the host name when the server offers TLS;
    // `.require` checks both; `.verifyCA` the chain only), "Certificates are checked against `rootCertificatePath`",
    // "A failed check is `serverUnavailable(address:cause:)` whose cause names the TLS failure: with `.require`,
    // `.verifyCA` or `.verifyFull`, a replicator never logs in to a server whose certificate failed the check",
    // client certificates of scripted roles, and the URL's `sslmode`/`sslrootcert`/`sslcert`/`sslkey`.
    @Test func tlsModesAndClientCertificatesOnAClusterOfItsOwn() async throws {
        try await OwnCluster.with { cluster in
            let certificates = try TemporaryFolder(prefix: "bb47-tls")
            let dir = certificates.url
            try "subjectAltName=IP:127.0.0.1\n".write(to: dir.appendingPathComponent("ip.ext"), atomically: false, encoding: .utf8)
            try "subjectAltName=DNS:db.example.test\n".write(to: dir.appendingPathComponent("dns.ext"), atomically: false, encoding: .utf8)
            for ca in ["ca", "otherca"] {
                try await BB47.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(ca).key", "-out", "\(ca).crt",
                                        "-days", "2", "-subj", "/CN=bb47 \(ca)"], in: dir)
            }
            let schema = "tls_sync"
            for (name, subject, ext, ca) in [("server-ip", "/CN=127.0.0.1", "ip.ext", "ca"), ("server-dns", "/CN=db.example.test", "dns.ext", "ca"),
                                             ("client", "/CN=certrole", nil, "ca"), ("client-wrongcn", "/CN=somebody", nil, "ca"),
                                             ("client-otherca", "/CN=certrole", nil, "otherca")] as [(String, String, String?, String)] {
                try await BB47.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr",
                                        "-subj", subject], in: dir)
                try await BB47.openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).crt", "-CAkey", "\(ca).key", "-CAcreateserial",
                                        "-out", "\(name).crt", "-days", "2"] + (ext.map { ["-extfile", $0] } ?? []), in: dir)
                chmod(dir.appendingPathComponent("\(name).key").path, 0o600)
            }
            let data = cluster.folder + "/data"
            for file in ["server-ip.crt", "server-ip.key", "server-dns.crt", "server-dns.key", "ca.crt"] {
                let target = data + "/" + file
                try FileManager.default.copyItem(atPath: dir.appendingPathComponent(file).path, toPath: target)
                try BB47.giveToServer(target, like: data)
            }
            let hba = """
                local all all scram-sha-256
                host all toolkit 127.0.0.1/32 scram-sha-256
                hostssl all certrole 127.0.0.1/32 cert
                hostssl all all 127.0.0.1/32 scram-sha-256

                """
            try hba.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
            try BB47.giveToServer(data + "/pg_hba.conf", like: data)
            let admin = cluster.address
            func adminSQL(_ text: String) async throws -> [[String?]] { try await DocPromiseFixture.sql(text, address: admin) }
            _ = try await adminSQL("ALTER SYSTEM SET ssl = 'on'")
            _ = try await adminSQL("ALTER SYSTEM SET ssl_cert_file = 'server-ip.crt'")
            _ = try await adminSQL("ALTER SYSTEM SET ssl_key_file = 'server-ip.key'")
            _ = try await adminSQL("ALTER SYSTEM SET ssl_ca_file = 'ca.crt'")
            _ = try await adminSQL("ALTER SYSTEM SET log_connections = 'on'")
            _ = try await adminSQL("SELECT pg_reload_conf()::text")

            let folder = try TemporaryFolder(prefix: "bb47-tls-stores")
            // The owner (superuser, no TLS: pg_hba.conf lets it) makes the schema; the DBA scripts two roles.
            let ownerStore = try BB47.store(folder, "owner")
            try ownerStore.docPut("owner", ["v": 1])
            _ = try await docPromiseDeadline("owner run", .seconds(20)) {
                try await DocumentSync(persistence: ownerStore, configuration: .init(address: admin, schema: schema)).run()
            }
            try await BB47.psql(try DocumentSync.userScript(user: "tlsuser", schema: schema), address: admin, in: folder)
            try await BB47.psql(try DocumentSync.userScript(user: "certrole", schema: schema), address: admin, in: folder)
            _ = try await adminSQL("ALTER ROLE tlsuser PASSWORD 'tls-secret'")

            func path(_ file: String) -> String { dir.appendingPathComponent(file).path }
            var counter = 0
            func replicate(_ address: PostgresAddress) async -> Result<DocumentSync.Report, any Error> {
                counter += 1
                let name = "r\(counter)"
                return await BB47.outcome {
                    var configuration = DocumentSync.Configuration(address: address, schema: schema)
                    configuration.createSchema = false
                    configuration.connectTimeout = .seconds(5)
                    configuration.statementTimeout = .seconds(10)
                    let store = try BB47.store(folder, name)
                    try store.docPut(name, ["via": .string(name)])
                    let sync = try DocumentSync(persistence: store, configuration: configuration)
                    return try await docPromiseDeadline("run() \(name)", .seconds(20)) { try await sync.run() }
                }
            }
            let log = cluster.folder + "/log"
            func logins(_ user: String) -> Int { BB47.logCount(log, "connection authorized: user=\(user) ") }
            func expectRefusedByTLS(_ what: String, _ result: Result<DocumentSync.Report, any Error>, sourceLocation: SourceLocation = #_sourceLocation) {
                print("tlsModes: \(what): \(result)")
                guard case .failure(let error) = result, let sync = error as? DocumentSyncError, case .serverUnavailable(_, let cause) = sync else {
                    Issue.record("\(what): not serverUnavailable: \(result)", sourceLocation: sourceLocation)
                    return
                }
                let lower = cause.lowercased()
                #expect(["tls", "ssl", "certificate", "handshake"].contains { lower.contains($0) }, "\(what): the cause names no TLS failure: \(cause)",
                        sourceLocation: sourceLocation)
            }
            var tls = PostgresAddress(host: "127.0.0.1", port: admin.port, user: "tlsuser", database: admin.database,
                                      password: "tls-secret", tls: .prefer, rootCertificatePath: path("ca.crt"))

            // `.prefer` with the CA that signed the server's certificate: TLS, since the server offers it.
            let preferred = await replicate(tls)
            #expect((try? preferred.get())?.pushedDocuments == 1, "prefer with the right CA: \(preferred)")
            #expect(try await docPromiseEventually("the prefer login in the log", timeout: .seconds(10)) { logins("tlsuser") == 1 })
            let preferLine = (String(data: FileManager.default.contents(atPath: log) ?? Data(), encoding: .utf8) ?? "")
                .components(separatedBy: "\n").first { $0.contains("connection authorized: user=tlsuser ") } ?? ""
            print("tlsModes: prefer's login: \(preferLine)")
            #expect(preferLine.contains("SSL enabled"), "prefer did not encrypt although the server offers TLS: \(preferLine)")

            // Failed checks: nobody logs in.
            var preferOther = tls
            preferOther.rootCertificatePath = path("otherca.crt")
            let preferRefused = await replicate(preferOther)
            print("tlsModes: prefer with another CA: \(preferRefused)")
            #expect((try? preferRefused.get()) == nil, "prefer logged in to a server whose chain failed the check")
            var requireOther = tls
            requireOther.tls = .require
            requireOther.rootCertificatePath = path("otherca.crt")
            requireOther.password = "wrong-password"
            expectRefusedByTLS("require, another CA, a wrong password", await replicate(requireOther))
            var verifyCAOther = tls
            verifyCAOther.tls = .verifyCA
            verifyCAOther.rootCertificatePath = path("otherca.crt")
            expectRefusedByTLS("verify-ca, another CA", await replicate(verifyCAOther))
            var missingRoot = tls
            missingRoot.tls = .verifyFull
            missingRoot.rootCertificatePath = path("no-such-ca.crt")
            let missing = await replicate(missingRoot)
            print("tlsModes: verify-full with a root file that does not exist: \(missing)")
            #expect((try? missing.get()) == nil, "verify-full with a missing root file connected")
            // `.require` with the right CA connects: the marker that the log caught up.
            var require = tls
            require.tls = .require
            let required = await replicate(require)
            #expect((try? required.get())?.pushedDocuments == 1, "require with the right CA: \(required)")
            #expect(try await docPromiseEventually("require's login in the log", timeout: .seconds(10)) { logins("tlsuser") >= 2 })
            #expect(logins("tlsuser") == 2, "a refused TLS check still logged in")
            #expect(BB47.logCount(log, "password authentication failed for user \"tlsuser\"") == 0,
                    "the client sent its password to a server whose certificate failed the check")

            // Client certificates, from a URL as libpq reads it.
            let url = "postgres://certrole@127.0.0.1:\(admin.port)/\(admin.database)?sslmode=verify-full&sslrootcert=\(path("ca.crt"))&sslcert=\(path("client.crt"))&sslkey=\(path("client.key"))"
            let byURL = try PostgresAddress(url: url, environment: [:])
            #expect(byURL.password == nil)
            let certified = await replicate(byURL)
            #expect((try? certified.get())?.pushedDocuments == 1, "a client certificate from the URL: \(certified)")
            for (what, certificate, key) in [("a client certificate another CA signed", "client-otherca.crt", "client-otherca.key"),
                                             ("a client certificate of another name", "client-wrongcn.crt", "client-wrongcn.key"),
                                             ("a key that is not the certificate's", "client.crt", "client-wrongcn.key"),
                                             ("a certificate file that does not exist", "no-such.crt", "client.key")] {
                var address = byURL
                address.clientCertificatePath = path(certificate)
                address.clientKeyPath = path(key)
                let result = await replicate(address)
                print("tlsModes: \(what): \(result)")
                #expect((try? result.get()) == nil, "\(what) logged in")
                if case .failure(let error) = result { #expect(error is DocumentSyncError, "\(what): \(error)") }
            }
            #expect(try await adminSQL("SELECT count(*)::text FROM tls_sync.documents") == [["4"]])

            // A certificate that names another host.
            _ = try await adminSQL("ALTER SYSTEM SET ssl_cert_file = 'server-dns.crt'")
            _ = try await adminSQL("ALTER SYSTEM SET ssl_key_file = 'server-dns.key'")
            _ = try await adminSQL("SELECT pg_reload_conf()::text")
            var full = tls
            full.tls = .verifyFull
            let switched = try await docPromiseEventually("the server to serve the other certificate", timeout: .seconds(20)) {
                (try? await replicate(full).get()) == nil
            }
            #expect(switched)
            let loginsBefore = logins("tlsuser")
            expectRefusedByTLS("require, a certificate for another host", await replicate(require))
            let preferHost = await replicate(tls)
            print("tlsModes: prefer, a certificate for another host: \(preferHost)")
            #expect((try? preferHost.get()) == nil, "prefer logged in to a server whose host name failed the check")
            var caOnly = byURL
            caOnly.tls = .verifyCA
            let caOnlyResult = await replicate(caOnly)
            #expect((try? caOnlyResult.get())?.pushedDocuments == 1, "verify-ca with a client certificate, another host name: \(caOnlyResult)")
            #expect(try await docPromiseEventually("certrole's logins in the log", timeout: .seconds(10)) { logins("certrole") >= 2 })
            #expect(logins("tlsuser") == loginsBefore, "a failed host name check still logged in")
        }
    }
}

// MARK: - Purges

@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct DocPromisePurgeAdversarialTests {

    // WhatReplicates.md: "a replica's pull that passes it removes its copy of the document too, … when nothing of the
    // copy changed since the replica's push checkpoint and none of its live leaves is in the server's tree now" …
    // "A copy changed since the checkpoint stays and goes up (the document lives on)" … "a document made again
    // later, from a new first revision, reaches it". Four replicas, two purges of the same document, pages of one.
    @Test func severalReplicasTwoPurgesAndAnEditRightBeforeThePurge() async throws {
        try await DocPromiseFixture.with("bbmulti") { f in
            let a = try f.store("a"), b = try f.store("b"), c = try f.store("c"), e = try f.store("e")
            let stores = [("a", a), ("b", b), ("c", c), ("e", e)]
            func run(_ s: Persistence, _ retention: Duration? = .seconds(30 * 24 * 3600)) async throws -> DocumentSync.Report {
                try await f.sync(s) { $0.batchSize = 1; $0.tombstoneRetention = retention }.dpRun()
            }
            try a.docPut("d", ["v": 1])
            for i in 0..<5 { try a.docPut("fill\(i)", ["i": .double(Double(i))]) }
            _ = try await run(a)
            for s in [b, c, e] { _ = try await run(s) }
            try c.docPut("d", ["v": "c edits right before the purge"])     // not pushed yet
            try a.docRemove("d")
            _ = try await run(a)
            _ = try await run(a, .zero)
            #expect(try await f.count("S.documents WHERE id = 'd'") == 0, "d was not purged")
            // B pulls only: its settled live copy goes.
            let bPull = try await f.sync(b) { $0.batchSize = 1 }.dpPull()
            #expect(try b.branches(of: "d").isEmpty, "B kept its settled live copy: \(bPull)")
            #expect(bPull.purgedLocally == 1, "\(bPull)")
            // C's change stays and goes up.
            let cRun = try await run(c)
            #expect(try c.docBody("d") == ["v": "c edits right before the purge"], "\(cRun)")
            #expect(try await f.value("SELECT deleted::text FROM S.documents WHERE id = 'd'") == "false", "C's edit did not go up: \(cRun)")
            for s in [b, a, c] { _ = try await run(s) }
            #expect(try a.docBody("d") == ["v": "c edits right before the purge"])
            #expect(try b.docBody("d") == ["v": "c edits right before the purge"])
            try await BB47.expectConverged(f, [("a", a), ("b", b), ("c", c)], "after C's edit lived on")
            // Deleted and purged again, then made again from a new first revision; B and E were away.
            try c.docRemove("d")
            _ = try await run(c)
            _ = try await run(c, .zero)
            #expect(try await f.count("S.purges WHERE id = 'd'") >= 1)
            #expect(try await f.count("S.documents WHERE id = 'd'") == 0, "d was not purged the second time")
            try a.docPut("d", ["v": "third incarnation"])
            _ = try await run(a)
            for s in [b, e, c, a] {
                let report = try await run(s)
                print("severalReplicas: \(report)")
            }
            for (name, s) in stores { #expect(try s.docBody("d") == ["v": "third incarnation"], "\(name)") }
            try await BB47.expectConverged(f, stores, "after the third incarnation")
        }
    }

    // WhatReplicates.md: "A copy changed since the checkpoint stays and goes up (the document lives on), and so does
    // one whose live leaf the server holds again." The same first revision made again by another replica.
    @Test func aStaleCopyWhoseLiveLeafTheServerHoldsAgainStays() async throws {
        try await DocPromiseFixture.with("bbagain") { f in
            let a = try f.store("a"), b = try f.store("b"), c = try f.store("c"), x = try f.store("x")
            try a.docPut("d", ["v": 1])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b).dpRun()
            _ = try await f.sync(c).dpRun()
            let original = try b.docWinner("d")
            try a.docRemove("d")
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await f.count("S.documents WHERE id = 'd'") == 0)
            try x.docPut("d", ["v": 1])
            try #require(try x.docWinner("d") == original, "the same first body did not make the same revision")
            _ = try await f.sync(x).dpRun()
            #expect(try await f.serverLeaves("d") == [original!])
            let pulled = try await f.sync(b).dpPull()
            #expect(try b.docBody("d") == ["v": 1], "B removed a copy whose live leaf the server holds again: \(pulled)")
            #expect(pulled.purgedLocally == 0, "\(pulled)")
            _ = try await f.sql("UPDATE S.checkpoints SET pull = ''")
            let fromZero = try await f.sync(c) { $0.batchSize = 1 }.dpPull()
            #expect(try c.docBody("d") == ["v": 1], "C, pulling from zero, removed it: \(fromZero)")
            _ = try await f.sync(a).dpRun()
            #expect(try a.docBody("d") == ["v": 1], "A kept its tombstone of the first incarnation")
            try await BB47.expectConverged(f, [("a", a), ("b", b), ("c", c), ("x", x)], "the first revision made again")
        }
    }

    // WhatReplicates.md: "This holds for a replica that pulls from zero too …: it reads every purge record." With
    // pages of two and of one, and kinds filters ("each filter is its own replication").
    @Test func pullingFromZeroReadsEveryPurgeRecordAcrossPagesAndFilters() async throws {
        try await DocPromiseFixture.with("bbzero") { f in
            let a = try f.store("a"), b = try f.store("b"), c = try f.store("c"), e = try f.store("e")
            for i in 0..<10 { try a.docPut("n\(i)", ["i": .double(Double(i))]) }
            for i in 0..<6 { try a.save(DocPromiseOther("o\(i)", ["i": .double(Double(i))])) }
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b) { $0.kinds = [DocPromiseNote.kind]; $0.batchSize = 2 }.dpRun()
            _ = try await f.sync(c) { $0.kinds = [DocPromiseOther.kind]; $0.batchSize = 2 }.dpRun()
            _ = try await f.sync(e) { $0.batchSize = 1 }.dpRun()
            for i in [1, 3, 5, 7] { try a.docRemove("n\(i)") }
            for i in [1, 3] { try a.bbRemoveOther("o\(i)") }
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await f.count("S.purges") == 6)
            // New documents after the purges, so the purge records sit between pages of live documents.
            try a.docPut("late", ["v": 1])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sql("UPDATE S.checkpoints SET pull = ''")
            let bPull = try await f.sync(b) { $0.kinds = [DocPromiseNote.kind]; $0.batchSize = 2 }.dpPull()
            let cPull = try await f.sync(c) { $0.kinds = [DocPromiseOther.kind]; $0.batchSize = 2 }.dpPull()
            let ePull = try await f.sync(e) { $0.batchSize = 1 }.dpPull()
            print("pullingFromZero: B \(bPull), C \(cPull), E \(ePull)")
            #expect(bPull.purgedLocally == 4, "\(bPull)")
            #expect(cPull.purgedLocally == 2, "\(cPull)")
            #expect(ePull.purgedLocally == 6, "\(ePull)")
            let notes = try await BB47.serverLeaves(f, kinds: [DocPromiseNote.kind])
            let others = try await BB47.serverLeaves(f, kinds: [DocPromiseOther.kind])
            #expect(try b.allLeaves() == notes, "B (notes only) differs from the server's notes")
            #expect(try c.allLeaves() == others, "C (others only) differs from the server's others")
            #expect(try e.allLeaves() == (try await BB47.serverLeaves(f)), "E differs from the server")
            #expect(try b.docBody("late") == ["v": 1])
        }
    }

    // WhatReplicates.md: "The purge locks each document as a push does and checks again under the lock that no leaf is
    // live, so a document that gained a live branch meanwhile is never removed" and "A copy changed since the checkpoint
    // stays and goes up". A replica's edit pushed at the same moment as another's purge must never be lost.
    @Test func anEditPushedWhileAnotherReplicaPurgesIsNeverLost() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("anEditPushedWhileAnotherReplicaPurges: seed \(seed)")
        var random = BB47Random(seed: seed)
        try await DocPromiseFixture.with("bbrace") { f in
            let a = try f.store("a"), b = try f.store("b"), c = try f.store("c")
            for round in 0..<6 {
                let id = "r\(round)"
                try a.docPut(id, ["v": 1])
                _ = try await f.sync(a).dpRun()
                _ = try await f.sync(b).dpRun()
                _ = try await f.sync(c).dpRun()
                try a.docRemove(id)
                _ = try await f.sync(a).dpRun()
                try b.docPut(id, ["b": .double(Double(round))])
                let purgeDelay = Int(random.next() % 25), pushDelay = Int(random.next() % 25)
                let purger = try f.sync(a) { $0.tombstoneRetention = .zero }
                let pusher = try f.sync(b)
                async let purged = BB47.outcome {
                    try await Task.sleep(for: .milliseconds(purgeDelay))
                    return try await purger.dpRun(.seconds(15))
                }
                async let pushed = BB47.outcome {
                    try await Task.sleep(for: .milliseconds(pushDelay))
                    return try await pusher.dpPush(.seconds(15))
                }
                let (p, q) = await (purged, pushed)
                print("anEditPushedWhileAnotherReplicaPurges: round \(round) delays \(purgeDelay)/\(pushDelay): purge \(p), push \(q)")
                #expect((try? p.get()) != nil && (try? q.get()) != nil, "round \(round): \(p) \(q)")
                for s in [b, a, c, a, b] { _ = try await f.sync(s).dpRun() }
                for (name, s) in [("a", a), ("b", b), ("c", c)] {
                    #expect(try s.docBody(id) == ["b": .double(Double(round))], "round \(round) (seed \(seed)): \(name) lost B's edit")
                }
                #expect(try await f.value("SELECT deleted::text FROM S.documents WHERE id = '\(id)'") == "false", "round \(round) (seed \(seed))")
                try await BB47.expectConverged(f, [("a", a), ("b", b), ("c", c)], "round \(round) (seed \(seed))")
            }
        }
    }

    // WhatReplicates.md: "checks again under the lock that no leaf is live": a document whose conflict left one live
    // branch after the other was deleted is never purged.
    @Test func aDocumentWithALiveConflictBranchIsNeverPurged() async throws {
        try await DocPromiseFixture.with("bbbranch") { f in
            let a = try f.store("a"), b = try f.store("b")
            try a.docPut("d", ["v": 1])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b).dpRun()
            try a.docPut("d", ["v": "a"])
            try b.docPut("d", ["v": "b"])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b).dpRun()
            _ = try await f.sync(a).dpRun()
            try #require(try a.docLiveLeaves("d") == 2)
            try a.docRemove("d")
            let live = try a.docLiveLeaves("d")
            print("aDocumentWithALiveConflictBranch: live leaves after delete \(live), branches \(try a.branches(of: "d").map(\.deleted))")
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()
            _ = try await f.sync(b) { $0.tombstoneRetention = .zero }.dpRun()
            let serverLive = try await f.count("S.revisions WHERE document = 'd' AND leaf AND NOT deleted")
            if serverLive > 0 {
                #expect(try await f.count("S.documents WHERE id = 'd'") == 1, "a document with a live leaf was purged")
                #expect(try await f.count("S.purges WHERE id = 'd'") == 0)
            } else {
                #expect(try await f.count("S.documents WHERE id = 'd'") == 0)
            }
            _ = try await f.sync(b).dpRun()
            _ = try await f.sync(a).dpRun()
            try await BB47.expectConverged(f, [("a", a), ("b", b)], "a conflict, one branch deleted")
        }
    }

    // WhatReplicates.md: "A server that lost a push checkpoint (restored from an older backup …) gets again, from each
    // replica's next push, what it had acknowledged since, so it recovers what it lost." More than five runs since the
    // backup (each side keeps five entries), pages of two; and what is made after the restore reaches everyone,
    // although the restored feed hands out positions again.
    @Test func aServerRestoredFromAnOlderBackupRecoversWhatItAcknowledged() async throws {
        try await DocPromiseFixture.with("bbrestore") { f in
            let a = try f.store("a"), b = try f.store("b")
            func run(_ s: Persistence) async throws -> DocumentSync.Report { try await f.sync(s) { $0.batchSize = 2 }.dpRun() }
            for i in 0..<4 { try a.docPut("k\(i)", ["v": 0]) }
            _ = try await run(a)
            _ = try await run(b)
            let backup = "\(f.schema)_bk"
            let tables = try await f.sql("SELECT tablename FROM pg_tables WHERE schemaname = '\(f.schema)' ORDER BY tablename").map { $0[0]! }
            _ = try await f.sql("CREATE SCHEMA \"\(backup)\"")
            do {
                for table in tables { _ = try await f.sql("CREATE TABLE \"\(backup)\".\(table) AS TABLE S.\(table)") }
                for i in 0..<7 {
                    try b.docPut("x\(i)", ["v": .double(Double(i))])
                    if i == 3 { try b.docPut("k1", ["v": "edited after the backup"]) }
                    _ = try await run(b)
                }
                try a.docPut("y0", ["v": 1])
                let aBefore = try await run(a)
                let seen = try (0..<7).filter { try a.docBody("x\($0)") != nil }
                print("aServerRestored: A's run before the restore: \(aBefore); A has x\(seen)")
                #expect(try a.docBody("x6") == ["v": .double(6)], "A's one run (pages of two) did not pull everything: \(aBefore), has x\(seen)")
                // The restore.
                _ = try await f.sql("TRUNCATE " + tables.map { "S.\($0)" }.joined(separator: ", "))
                for table in tables { _ = try await f.sql("INSERT INTO S.\(table) SELECT * FROM \"\(backup)\".\(table)") }
                #expect(try await f.count("S.documents WHERE id = 'x0'") == 0)
                try b.docPut("z", ["v": "after the restore"])
                let bReport = try await run(b)
                print("aServerRestored: B's first run after the restore: \(bReport)")
                let aReport = try await run(a)
                print("aServerRestored: A's first run after the restore: \(aReport)")
                _ = try await run(b)
                for i in 0..<7 { #expect(try await f.count("S.documents WHERE id = 'x\(i)'") == 1, "x\(i) was not recovered") }
                #expect(try await f.count("S.documents WHERE id = 'y0'") == 1, "A's y0 was not recovered")
                #expect(try a.docBody("z") == ["v": "after the restore"], "a document made after the restore did not reach A")
                #expect(try b.docBody("y0") == ["v": 1])
                #expect(try a.docBody("k1") == ["v": "edited after the backup"])
                try await BB47.expectConverged(f, [("a", a), ("b", b)], "after the restore")
            } catch {
                _ = try? await f.sql("DROP SCHEMA IF EXISTS \"\(backup)\" CASCADE")
                throw error
            }
            _ = try? await f.sql("DROP SCHEMA IF EXISTS \"\(backup)\" CASCADE")
        }
    }

    // WhatReplicates.md: "Except what it deleted and purged since: a document the replica's own checkpoint covers
    // (nothing changed since), with a purge record on the server and none of its live leaves in the server's tree, is
    // removed from the replica instead of being sent back, so a deletion is never undone." Several documents over
    // pages of two: purged ones go, changed ones go up, a tombstone kept goes, others stay; with a kinds filter too.
    @Test func lostCheckpointsOverPagesNeverUndoADeletion() async throws {
        try await DocPromiseFixture.with("bblostpush") { f in
            let a = try f.store("a"), b = try f.store("b"), n = try f.store("notes")
            for i in 0..<8 { try a.docPut("d\(i)", ["v": 0]) }
            try a.save(DocPromiseOther("o0", ["v": 0]))
            try a.save(DocPromiseOther("o1", ["v": 0]))
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b) { $0.batchSize = 2 }.dpRun()
            _ = try await f.sync(n) { $0.batchSize = 2; $0.kinds = [DocPromiseNote.kind] }.dpRun()
            // B saw d6's deletion (keeps a tombstone); then d1, d3, d5, d6, o1 are purged.
            try a.docRemove("d6")
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b) { $0.batchSize = 2 }.dpRun()
            _ = try await f.sync(n) { $0.batchSize = 2; $0.kinds = [DocPromiseNote.kind] }.dpRun()
            for i in [1, 3, 5] { try a.docRemove("d\(i)") }
            try a.bbRemoveOther("o1")
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await f.count("S.purges") == 5)
            try b.docPut("d3", ["v": "B changed it since"])
            try n.docPut("d5", ["v": "N changed it since"])
            try b.docPut("fresh", ["v": 1])
            _ = try await f.sql("DELETE FROM S.checkpoints")
            let bRun = try await f.sync(b) { $0.batchSize = 2 }.dpRun()
            let nRun = try await f.sync(n) { $0.batchSize = 2; $0.kinds = [DocPromiseNote.kind] }.dpRun()
            print("lostCheckpoints: B \(bRun), N \(nRun)")
            for id in ["d1", "d6", "o1"] {
                #expect(try await f.count("S.documents WHERE id = '\(id)'") == 0, "\(id), deleted and purged, is back on the server")
                #expect(try b.branches(of: id).isEmpty, "B kept \(id)")
            }
            #expect(try n.branches(of: "d1").isEmpty && n.branches(of: "d6").isEmpty, "N kept a purged note")
            #expect(try await f.value("SELECT deleted::text FROM S.documents WHERE id = 'd3'") == "false", "B's change of d3 did not go up")
            #expect(try await f.value("SELECT deleted::text FROM S.documents WHERE id = 'd5'") == "false", "N's change of d5 did not go up")
            #expect(try await f.count("S.documents WHERE id = 'fresh'") == 1)
            for s in [a, b, a] { _ = try await f.sync(s).dpRun() }
            _ = try await f.sync(n) { $0.kinds = [DocPromiseNote.kind] }.dpRun()
            #expect(try a.docBody("d3") == ["v": "B changed it since"])
            #expect(try a.docBody("d5") == ["v": "N changed it since"])
            #expect(try b.docBody("d5") == ["v": "N changed it since"])
            #expect(try b.docBody("d7") == ["v": 0] && b.docBody("d0") == ["v": 0])
            try await BB47.expectConverged(f, [("a", a), ("b", b)], "after the checkpoints were lost")
            #expect(try n.allLeaves() == (try await BB47.serverLeaves(f, kinds: [DocPromiseNote.kind])))
        }
    }

    // WhatReplicates.md: "a crash does not lose them, they commit with their pushes" and "This holds for a replica
    // that pulls from zero too (a server crash can lose the pull checkpoints …): it reads every purge record." A power
    // cut right after the purge, and another right after the next incarnation's push.
    @Test func aServerCrashAfterThePurgeLosesNoPushCheckpointAndReplicasConverge() async throws {
        try await OwnCluster.with { cluster in
            let folder = try TemporaryFolder(prefix: "bb47-crash")
            let schema = "crash_sync"
            let a = try BB47.store(folder, "a"), b = try BB47.store(folder, "b"), c = try BB47.store(folder, "c")
            func run(_ s: Persistence, _ retention: Duration? = .seconds(30 * 24 * 3600)) async throws -> DocumentSync.Report {
                var configuration = DocumentSync.Configuration(address: cluster.address, schema: schema)
                configuration.batchSize = 2
                configuration.tombstoneRetention = retention
                configuration.connectTimeout = .seconds(10)
                configuration.statementTimeout = .seconds(10)
                let sync = try DocumentSync(persistence: s, configuration: configuration)
                return try await docPromiseDeadline("run()", .seconds(30)) { try await sync.run() }
            }
            func sql(_ text: String) async throws -> [[String?]] {
                try await DocPromiseFixture.sql(text.replacingOccurrences(of: "S.", with: "\(schema)."), address: cluster.address)
            }
            for i in 0..<5 { try a.docPut("keep\(i)", ["v": 1]) }
            try a.docPut("d", ["v": 1])
            try a.docPut("d2", ["v": 1])
            _ = try await run(a)
            _ = try await run(b)
            _ = try await run(c)
            try a.docRemove("d")
            try a.docRemove("d2")
            _ = try await run(a)
            _ = try await run(a, .zero)
            #expect(try await sql("SELECT count(*)::text FROM S.documents WHERE id IN ('d', 'd2')") == [["0"]])
            let pushes = try await sql("SELECT replication, push FROM S.checkpoints ORDER BY replication")
            try await cluster.crash()
            try await cluster.restart()
            let after = try await sql("SELECT replication, push FROM S.checkpoints ORDER BY replication")
            #expect(after == pushes, "the crash lost push checkpoints: before \(pushes), after \(after)")
            let bRun = try await run(b)
            print("aServerCrash: B after the crash: \(bRun)")
            #expect(try b.branches(of: "d").isEmpty && b.branches(of: "d2").isEmpty, "B kept a purged document: \(bRun)")
            try c.docPut("d", ["v": "again"])
            _ = try await run(c)
            try await cluster.crash()
            try await cluster.restart()
            for s in [b, a, c, b] { _ = try await run(s) }
            let server = try await BB47.serverLeaves(schema: schema, address: cluster.address)
            for (name, s) in [("a", a), ("b", b), ("c", c)] {
                #expect(try s.allLeaves() == server, "\(name) differs from the server after the crashes")
                #expect(try s.docBody("d") == ["v": "again"], "\(name)")
                #expect(try s.branches(of: "d2").isEmpty, "\(name) kept d2")
            }
            #expect(try await sql("SELECT count(*)::text FROM S.documents WHERE id = 'd2'") == [["0"]], "d2 came back")
        }
    }
}
