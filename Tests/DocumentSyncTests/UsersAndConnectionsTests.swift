import DocumentStore
import DocumentSync
import Foundation
import Testing
import TestSupport

/// Issue 47, identities: each replica logs in as a role of its own that a DBA made with
/// `DocumentSync.userScript` (`shapes sync --print-user`), by password or by client certificate, over
/// TLS verified against a CA the test makes with `openssl`.
@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct UsersAndConnectionsTests {
    static let bin = ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Runs a script through psql as the address's (superuser) role, as a DBA would.
    static func psql(_ script: String, address: PostgresAddress, in folder: TemporaryFolder) async throws {
        let file = folder.file("script-\(UInt32.random(in: 0...UInt32.max)).sql")
        try script.write(to: file, atomically: false, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = address.resolvedPassword() ?? ""
        let child = try ChildProcess.start(URL(fileURLWithPath: bin + "/psql"),
                                           ["-h", address.host, "-p", "\(address.port)", "-U", address.user, "-d", address.database,
                                            "-v", "ON_ERROR_STOP=1", "-q", "-f", file.path], environment: environment)
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        guard end == .exited(0) else { throw child.error("psql -f \(file.lastPathComponent) ended with \(end)") }
    }

    /// Runs `openssl` with `arguments` in `folder`.
    static func openssl(_ arguments: [String], in folder: URL) async throws {
        let child = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"),
                                           ["-c", "cd \"$0\" && exec openssl \"$@\"", folder.path] + arguments)
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        guard end == .exited(0) else { throw child.error("openssl \(arguments.first ?? "") ended with \(end)") }
    }

    @Test("a role made by userScript replicates with createSchema off; a role outside the group is refused, its store unchanged")
    func userScriptMakesAReplicaRole() async throws {
        try await DocPromiseFixture.with("users") { f in
            let suffix = f.schema.split(separator: "_").last.map(String.init) ?? "0"
            let alice = "alice_\(suffix)", mallory = "mallory_\(suffix)"
            let owner = try f.store("owner")
            try owner.docPut("shared", ["from": "owner"])
            _ = try await f.sync(owner).dpRun()               // the superuser creates the schema

            let script = try DocumentSync.userScript(user: alice, schema: f.schema)
            #expect(script.contains("CREATE ROLE \"\(alice)\" LOGIN IN ROLE \"\(f.schema)_replica\""))
            #expect(!script.lowercased().contains("password '"), "the script must not carry a password")
            do {
                try await Self.psql(script, address: f.address, in: f.folder)
                _ = try await f.sql("ALTER ROLE \"\(alice)\" PASSWORD 'alice-secret'")
                _ = try await f.sql("CREATE ROLE \"\(mallory)\" LOGIN PASSWORD 'mallory-secret'")

                var aliceAddress = f.address
                aliceAddress.user = alice
                aliceAddress.password = "alice-secret"
                let store = try f.store("alice")
                try store.docPut("mine", ["from": "alice"])
                let report = try await f.sync(store) { $0.address = aliceAddress; $0.createSchema = false }.dpRun()
                #expect(report.pushedDocuments == 1)
                #expect(try store.docBody("shared") == ["from": "owner"])
                #expect(try await f.count("S.documents WHERE id = 'mine'") == 1)

                var malloryAddress = f.address
                malloryAddress.user = mallory
                malloryAddress.password = "mallory-secret"
                let intruder = try f.store("mallory")
                try intruder.docPut("forged", ["from": "mallory"])
                let before = try intruder.docLeaves("forged")
                do {
                    let report = try await f.sync(intruder) { $0.address = malloryAddress; $0.createSchema = false }.dpRun()
                    Issue.record("a role outside \(f.schema)_replica replicated: \(report)")
                } catch let error as DocumentSyncError {
                    print("userScriptMakesAReplicaRole: a role outside the group: \(error)")
                    if case .server(let state, _) = error { #expect(state == "42501") } else { Issue.record("not a permission error: \(error)") }
                }
                #expect(try await f.count("S.documents WHERE id = 'forged'") == 0)
                #expect(try intruder.docLeaves("forged") == before)
                #expect(try intruder.docBody("shared") == nil)
            } catch {
                try? await Self.dropRoles([alice, mallory, "\(f.schema)_replica"], f)
                throw error
            }
            try await Self.dropRoles([alice, mallory, "\(f.schema)_replica"], f)
        }
    }

    @Test("userScript refuses names that are not plain identifiers")
    func userScriptRefusesOddNames() {
        #expect(throws: DocumentSyncError.invalidRoleName("Alice; DROP TABLE x")) {
            try DocumentSync.userScript(user: "Alice; DROP TABLE x", schema: "shapes_sync")
        }
        #expect(throws: DocumentSyncError.invalidSchemaName("a\"b")) {
            try DocumentSync.userScript(user: "alice", schema: "a\"b")
        }
    }

    static func dropRoles(_ roles: [String], _ f: DocPromiseFixture) async throws {
        for role in roles {
            _ = try? await f.sql("DROP OWNED BY \"\(role)\"")
            _ = try? await f.sql("DROP ROLE IF EXISTS \"\(role)\"")
        }
    }

    @Test("TLS: verify-full against the test's own CA, a wrong CA or host name refused, a client certificate logs in without a password")
    func tlsVerifyFullAndClientCertificates() async throws {
        try await OwnCluster.with { cluster in
            let certificates = try TemporaryFolder(prefix: "sync-tls")
            let dir = certificates.url
            // A CA, a server certificate for 127.0.0.1, another for a name we do not connect by, a second
            // CA nobody trusts, and a client certificate for the role `certuser`.
            try "subjectAltName=IP:127.0.0.1\n".write(to: dir.appendingPathComponent("ip.ext"), atomically: false, encoding: .utf8)
            try "subjectAltName=DNS:db.example.test\n".write(to: dir.appendingPathComponent("dns.ext"), atomically: false, encoding: .utf8)
            for ca in ["ca", "otherca"] {
                try await Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(ca).key", "-out", "\(ca).crt",
                                        "-days", "2", "-subj", "/CN=toolkit test \(ca)"], in: dir)
            }
            for (name, subject, ext) in [("server-ip", "/CN=127.0.0.1", "ip.ext"), ("server-dns", "/CN=db.example.test", "dns.ext"),
                                         ("client", "/CN=certuser", nil)] {
                try await Self.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr",
                                        "-subj", subject], in: dir)
                try await Self.openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                                        "-out", "\(name).crt", "-days", "2"] + (ext.map { ["-extfile", $0] } ?? []), in: dir)
            }
            // The server reads its files from its own folder, as its own user.
            let data = cluster.folder + "/data"
            for file in ["server-ip.crt", "server-ip.key", "server-dns.crt", "server-dns.key", "ca.crt"] {
                let target = data + "/" + file
                try FileManager.default.copyItem(atPath: dir.appendingPathComponent(file).path, toPath: target)
                try Self.giveToServer(target, like: data)
            }
            // Loopback TCP only with TLS, except for the superuser the test administers through; certuser by certificate.
            let hba = """
                local all all scram-sha-256
                host all toolkit 127.0.0.1/32 scram-sha-256
                hostssl all certuser 127.0.0.1/32 cert
                hostssl all all 127.0.0.1/32 scram-sha-256

                """
            try hba.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
            try Self.giveToServer(data + "/pg_hba.conf", like: data)
            let admin = cluster.address
            func adminSQL(_ text: String) async throws { _ = try await DocPromiseFixture.sql(text, address: admin) }
            try await adminSQL("ALTER SYSTEM SET ssl = 'on'")
            try await adminSQL("ALTER SYSTEM SET ssl_cert_file = 'server-ip.crt'")
            try await adminSQL("ALTER SYSTEM SET ssl_key_file = 'server-ip.key'")
            try await adminSQL("ALTER SYSTEM SET ssl_ca_file = 'ca.crt'")
            try await adminSQL("SELECT pg_reload_conf()::text")
            try await adminSQL("CREATE ROLE tlsuser LOGIN PASSWORD 'tls-secret' SUPERUSER")
            try await adminSQL("CREATE ROLE certuser LOGIN SUPERUSER")

            let folder = try TemporaryFolder(prefix: "sync-tls-stores")
            func replicate(_ address: PostgresAddress, _ name: String) async throws -> DocumentSync.Report {
                var configuration = DocumentSync.Configuration(address: address, schema: "tls_sync")
                configuration.connectTimeout = .seconds(5)
                configuration.statementTimeout = .seconds(10)
                let store = try Persistence(configuration: PersistenceConfiguration(url: folder.file("\(name).sqlite")))
                store.register(persistableKind: DocPromiseNote.self)
                try store.docPut(name, ["via": .string(name)])
                let sync = try DocumentSync(persistence: store, configuration: configuration)
                return try await docPromiseDeadline("run()", .seconds(20)) { try await sync.run() }
            }
            func refused(_ address: PostgresAddress, _ name: String) async -> DocumentSyncError? {
                do {
                    let report = try await replicate(address, name)
                    Issue.record("\(name) connected: \(report)")
                    return nil
                } catch let error as DocumentSyncError {
                    print("tlsVerifyFullAndClientCertificates: \(name) refused: \(error)")
                    return error
                } catch {
                    Issue.record("\(name): not a DocumentSyncError: \(error)")
                    return nil
                }
            }
            var tls = PostgresAddress(host: "127.0.0.1", port: admin.port, user: "tlsuser", database: admin.database,
                                      password: "tls-secret", tls: .verifyFull, rootCertificatePath: dir.appendingPathComponent("ca.crt").path)
            // verify-full with the CA that signed the server's certificate, which names 127.0.0.1.
            #expect(try await replicate(tls, "verified").pushedDocuments == 1)
            #expect(try await DocPromiseFixture.sql("SELECT count(*)::text FROM tls_sync.documents", address: admin) == [["1"]])
            // Without TLS: pg_hba.conf has no line for it.
            var plain = tls
            plain.tls = .disable
            #expect(await refused(plain, "plain") != nil)
            // A CA that did not sign it.
            var otherCA = tls
            otherCA.rootCertificatePath = dir.appendingPathComponent("otherca.crt").path
            #expect(await refused(otherCA, "otherca") != nil)
            // `require` verifies too, against the system's roots, which do not hold the test's CA.
            var systemRoots = tls
            systemRoots.tls = .require
            systemRoots.rootCertificatePath = nil
            #expect(await refused(systemRoots, "systemroots") != nil)
            // A client certificate instead of a password.
            var byCertificate = tls
            byCertificate.user = "certuser"
            byCertificate.password = nil
            byCertificate.clientCertificatePath = dir.appendingPathComponent("client.crt").path
            byCertificate.clientKeyPath = dir.appendingPathComponent("client.key").path
            #expect(try await replicate(byCertificate, "bycertificate").pushedDocuments == 1)
            var noCertificate = byCertificate
            noCertificate.clientCertificatePath = nil
            noCertificate.clientKeyPath = nil
            #expect(await refused(noCertificate, "nocertificate") != nil)

            // A certificate that names another host: verify-full refuses it, verify-ca accepts it.
            try await adminSQL("ALTER SYSTEM SET ssl_cert_file = 'server-dns.crt'")
            try await adminSQL("ALTER SYSTEM SET ssl_key_file = 'server-dns.key'")
            try await adminSQL("SELECT pg_reload_conf()::text")
            // A reload applies to new connections; wait until one sees the new certificate.
            let deadline = ContinuousClock.now + .seconds(20)
            var hostRefused: DocumentSyncError?
            while ContinuousClock.now < deadline {
                hostRefused = await {
                    do { _ = try await replicate(tls, "wronghost"); return nil } catch let error as DocumentSyncError { return error } catch { return nil }
                }()
                if hostRefused != nil { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            print("tlsVerifyFullAndClientCertificates: wronghost refused: \(hostRefused.map { "\($0)" } ?? "no")")
            #expect(hostRefused != nil, "verify-full accepted a certificate for db.example.test at 127.0.0.1")
            var caOnly = tls
            caOnly.tls = .verifyCA
            #expect(try await replicate(caOnly, "caonly").pushedDocuments == 1)
            #expect(try await DocPromiseFixture.sql("SELECT count(*)::text FROM tls_sync.documents", address: admin) == [["3"]])
        }
    }

    /// Gives `path` to the server's user (the owner of `folder`), readable by it alone.
    static func giveToServer(_ path: String, like folder: String) throws {
        let owner = try FileManager.default.attributesOfItem(atPath: folder)
        try FileManager.default.setAttributes([.ownerAccountID: owner[.ownerAccountID] as Any,
                                               .groupOwnerAccountID: owner[.groupOwnerAccountID] as Any,
                                               .posixPermissions: 0o600], ofItemAtPath: path)
    }
}

@Suite("PostgresAddress: TLS settings")
struct PostgresAddressTLSTests {
    @Test("sslmode, sslrootcert, sslcert and sslkey are read as libpq reads them")
    func urlParameters() throws {
        let address = try PostgresAddress(url: "postgres://alice@db.example.com/app?sslmode=verify-full&sslrootcert=/etc/root.crt&sslcert=/home/a/c.crt&sslkey=/home/a/c.key")
        #expect(address.tls == .verifyFull)
        #expect(address.rootCertificatePath == "/etc/root.crt")
        #expect(address.clientCertificatePath == "/home/a/c.crt")
        #expect(address.clientKeyPath == "/home/a/c.key")
        #expect(try PostgresAddress(url: "postgres://a@h/d?sslmode=verify-ca").tls == .verifyCA)
        #expect(try PostgresAddress(url: "postgres://a@h/d?sslmode=require").tls == .require)
        #expect(throws: DocumentSyncError.self) { try PostgresAddress(url: "postgres://a@h/d?sslmode=sometimes") }
        #expect(throws: DocumentSyncError.self) { try PostgresAddress(url: "postgres://a@h/d?sslrootcert=") }
    }
}
