import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

@Suite("bad input", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct BadInputTests {
    @Test("a server that is down is .serverUnavailable, transient, and the local store keeps its changes")
    func serverDown() async throws {
        var address = try TestServer.address()
        address.port = 1   // nothing listens on port 1
        let fixture = try SyncFixture("down", address: address)
        let store = try fixture.store()
        try store.save(Item(identifier: "kept", body: ["n": 1]))
        await #expect { try await fixture.sync(store) { $0.connectTimeout = .seconds(5) }.run() } throws: { error in
            guard let error = error as? DocumentSyncError, case .serverUnavailable = error else { return false }
            return error.isTransient && "\(error)".contains("127.0.0.1:1")
        }
        #expect(try store.snapshot("kept")?.body == ["n": 1])
    }

    @Test("a statement without an answer within the statement timeout closes the connection: .serverUnavailable, transient")
    func statementTimeout() async throws {
        let session = try await ServerSession.open(try TestServer.address(), connectTimeout: .seconds(60), statementTimeout: .milliseconds(300))
        await #expect { try await session.execute("SELECT pg_sleep(5)") } throws: { error in
            guard let error = error as? DocumentSyncError, case .serverUnavailable(_, let cause) = error else { return false }
            return error.isTransient && cause.contains("no answer")
        }
        await #expect(throws: DocumentSyncError.self) { try await session.execute("SELECT 1") }
        await session.close()
    }

    @Test("a wrong password is .authenticationFailed, not retried as offline, and names the user but not the password")
    func wrongPassword() async throws {
        var address = try TestServer.address()
        address.password = "not-the-password"
        let fixture = try SyncFixture("password", address: address)
        await #expect { try await fixture.sync(try fixture.store()).run() } throws: { error in
            guard let error = error as? DocumentSyncError, case .authenticationFailed(_, let user, _) = error else { return false }
            return !error.isTransient && user == address.user && !"\(error)".contains("not-the-password")
        }
    }

    @Test("a server schema of a newer version is .serverSchemaNewer and nothing is written")
    func newerSchema() async throws {
        let fixture = try SyncFixture("newer")
        let store = try fixture.store()
        try await fixture.sync(store).run()
        try await fixture.execute("UPDATE S.meta SET value = '99' WHERE key = 'schema_version'")
        try store.save(Item(identifier: "waiting", body: ["n": 1]))
        await #expect { try await fixture.sync(store).run() } throws: { error in
            (error as? DocumentSyncError) == .serverSchemaNewer(schema: fixture.schema, found: 99, supported: ServerSchema.version)
        }
        #expect(try await fixture.count("S.documents") == 0)
        #expect(try store.snapshot("waiting") != nil)
        await fixture.dropSchema()
    }

    @Test("a database that is not UTF-8 is .serverEncoding")
    func notUTF8() async throws {
        let base = try TestServer.address()
        let name = "ascii_\(UInt32.random(in: 0...UInt32.max))"
        let fixture = try SyncFixture("encoding")
        try await fixture.execute("CREATE DATABASE \(name) ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        var address = base
        address.database = name
        let other = try SyncFixture("encoding", address: address)
        await #expect { try await other.sync(try other.store()).run() } throws: { error in
            (error as? DocumentSyncError) == .serverEncoding(database: name, found: "SQL_ASCII")
        }
        try await fixture.execute("DROP DATABASE \(name)")
    }

    @Test("a revision on the server whose body was changed behind the library's back is refused, and nothing of its batch is inserted")
    func tamperedRevision() async throws {
        let fixture = try SyncFixture("tampered")
        let a = try fixture.store()
        try KillTests.write(a, prefix: "doc", count: 5)
        try await fixture.sync(a).run()
        try await fixture.execute("UPDATE S.revisions SET body = '{\"n\":666,\"prefix\":\"doc\"}' WHERE document = 'doc-3'")
        let b = try fixture.store()
        await #expect { try await fixture.sync(b).run() } throws: { error in
            guard case .invalidRevision(let identifier, _, _)? = error as? DocumentSyncError else { return false }
            return identifier == "doc-3"
        }
        #expect(try b.rawCount("documents") == 0)
        await fixture.dropSchema()
    }

    @Test("a server body that is not JSON is .invalidRevision naming the server's document, not a local-store error")
    func serverBodyNotJSON() async throws {
        let fixture = try SyncFixture("notjson")
        let a = try fixture.store()
        try KillTests.write(a, prefix: "doc", count: 5)
        try a.save(Item(identifier: "nul", body: ["t": .string("a\u{0}b")]))   // text jsonb cannot hold
        try await fixture.sync(a).run()
        try await fixture.execute("UPDATE S.revisions SET body = '{\"n\": 3, oops' WHERE document = 'doc-2'")
        let b = try fixture.store()
        await #expect { try await fixture.sync(b).run() } throws: { error in
            guard case .invalidRevision(let identifier, _, let reason)? = error as? DocumentSyncError else { return false }
            return identifier == "doc-2" && reason.contains("not JSON")
        }
        #expect(try b.rawCount("documents") == 0)
        // The view for people still answers: the bad row has its text and no jsonb.
        let rows = try await fixture.sql("SELECT id, body IS NULL, body_text FROM S.current_documents ORDER BY id", as: (String, Bool, String?).self)
        #expect(rows.count == 6)
        #expect(rows.first { $0.0 == "doc-2" }.map { $0.1 && $0.2 == "{\"n\": 3, oops" } == true)
        #expect(rows.first { $0.0 == "nul" }.map { $0.1 && $0.2 == "{\"t\":\"a\\u0000b\"}" } == true)
        #expect(rows.filter { !$0.1 }.count == 4)
        await fixture.dropSchema()
    }

    @Test("a corrupt local store is moved aside before anything reaches the server")
    func corruptLocalStore() async throws {
        let fixture = try SyncFixture("corrupt")
        let file = fixture.folder.file("broken.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        let persistence = try Persistence(configuration: PersistenceConfiguration(url: file))
        guard case .corruptStoreMovedAside(_, let movedTo, _)? = persistence.recoveredFromCorruption else {
            Issue.record("expected the store moved aside, got \(String(describing: persistence.recoveredFromCorruption))")
            return
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == Data(repeating: 0x5A, count: 8192), "the damaged file is kept")
        #expect(try persistence.rawCount("documents") == 0, "a new, empty store: a sync then pulls the documents again")
    }
}

/// Addresses and passwords, checked without a server.
@Suite("addresses")
struct AddressTests {
    @Test("addresses: URLs parse, a bad one is .invalidAddress, passwords come from the API, PGPASSWORD or a private .pgpass")
    func addresses() throws {
        let parsed = try PostgresAddress(url: "postgres://me:secret@db.example.com:6543/shapes?sslmode=require", environment: [:])
        #expect(parsed == PostgresAddress(host: "db.example.com", port: 6543, user: "me", database: "shapes", password: "secret", tls: .require))
        #expect(parsed.description == "postgres://me@db.example.com:6543/shapes")
        #expect(throws: DocumentSyncError.self) { try PostgresAddress(url: "mysql://x@y/z", environment: [:]) }
        #expect(throws: DocumentSyncError.self) { try PostgresAddress(url: "postgres://x@y/z?sslmode=sometimes", environment: [:]) }
        let folder = try TemporaryFolder(prefix: "pgpass")
        let file = folder.file("pgpass")
        try "# comment\nother:5432:*:me:wrong\ndb.example.com:*:shapes:me:from\\:file\n".write(to: file, atomically: false, encoding: .utf8)
        let plain = try PostgresAddress(url: "postgres://me@db.example.com/shapes", environment: [:])
        chmod(file.path, 0o644)
        #expect(plain.resolvedPassword(environment: ["PGPASSFILE": file.path]) == nil, "a .pgpass others can read is ignored")
        chmod(file.path, 0o600)
        #expect(plain.resolvedPassword(environment: ["PGPASSFILE": file.path]) == "from:file")
        #expect(plain.resolvedPassword(environment: ["PGPASSFILE": file.path, "PGPASSWORD": "env"]) == "env")
        #expect(parsed.resolvedPassword(environment: ["PGPASSWORD": "env"]) == "secret")
        #expect(throws: DocumentSyncError.invalidSchemaName("Bad-Name")) { try DocumentSync.schemaScript(schema: "Bad-Name") }
        #expect(try DocumentSync.schemaScript(schema: "shapes_sync").contains("CREATE TABLE \"shapes_sync\".revisions"))
    }
}
