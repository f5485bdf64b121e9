import Foundation
import PostgresNIO

/// The tables and functions DocumentSync keeps on the server, inside one schema of its own.
///
/// - `meta`: the schema version, the server's identity (part of every replication id) and the purge
///   horizon (the last feed position whose tombstones were purged).
/// - `feed`: one counter row. A pushing transaction takes its positions from it as its last step, so
///   the row lock orders the feed by commit: a reader never sees a position before a smaller one commits.
/// - `documents`: each document's winner and its latest feed position.
/// - `revisions`: the revision tree. Leaves keep their exact JSON text (`text`, not `jsonb`, which
///   reorders keys and changes numbers) and their ancestry as pushed; inner nodes keep neither.
/// - `checkpoints`: each replication's recent push and pull checkpoints.
/// - `purges`: one row per document the tombstone purge removed, with a feed position of its own, so a
///   replica that kept the document's tombstones removes them too when its pull passes that position
///   (and a document made again later, from a new first revision, is not taken for an old branch).
///   Added to a version 1 schema that lacks it, like the view.
/// - `winners(ids)` and `winner(id)`: the winning leaves, by the rule every replica uses.
/// - `current_documents` and `jsonb_or_null(text)`: a view for people: each document's current revision, kind,
///   deleted flag, feed position and body text, and the body as `jsonb` where it casts (`NULL` where
///   it does not, such as text with `\u0000`), so one such row never breaks a query. Replication never
///   reads them, so they are not part of the version: a version 1 schema made before they existed
///   gains them the next time a replicator that may create the schema connects.
package enum ServerSchema {
    /// The version this library writes and understands.
    package static let version = 1

    /// Whether `name` can be a schema name (it is quoted, but kept simple so it is safe and portable).
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !name.isEmpty, name.utf8.count <= 63 else { return false }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789_")
        return !CharacterSet.decimalDigits.contains(first) && name.unicodeScalars.allSatisfy(allowed.contains)
    }

    /// The statements that create the current version in schema `name`, in order.
    static func statements(schema name: String) -> [String] {
        tables(schema: name) + additions(schema: name)
    }

    /// What was added to version 1 after its first release: the purge records, and the view for people
    /// with its function. Each statement can run on a schema at any time (`IF NOT EXISTS`, `CREATE OR
    /// REPLACE`).
    static func additions(schema name: String) -> [String] {
        let s = "\"\(name)\""
        return [
            """
            CREATE TABLE IF NOT EXISTS \(s).purges (
                sequence bigint PRIMARY KEY,
                id text COLLATE "C" NOT NULL,
                kind text COLLATE "C" NOT NULL)
            """,
            """
            CREATE OR REPLACE FUNCTION \(s).jsonb_or_null(body text) RETURNS jsonb
            LANGUAGE plpgsql IMMUTABLE AS $$
            BEGIN
                RETURN body::jsonb;
            EXCEPTION WHEN others THEN
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE VIEW \(s).current_documents AS
            SELECT d.id, d.kind, d.winner AS revision, d.deleted, d.sequence, d.changed_at,
                   CASE WHEN d.deleted THEN NULL ELSE r.body END AS body_text,
                   CASE WHEN d.deleted THEN NULL ELSE \(s).jsonb_or_null(r.body) END AS body
            FROM \(s).documents AS d
            LEFT JOIN \(s).revisions AS r ON r.document = d.id AND r.revision = d.winner
            """,
            // Tables added to a schema after its users' scripts ran (`GRANT … ON ALL TABLES` covers only
            // the tables of that moment): the replica group, when there is one, gets them too, unless
            // access control is on (``ServerAccess``: then the group uses its functions and nothing else).
            """
            DO $$ BEGIN
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = '\(replicaRole(schema: name))')
                   AND NOT EXISTS (SELECT FROM \(s).meta WHERE key = 'access') THEN
                    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(s) TO "\(replicaRole(schema: name))";
                    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \(s) TO "\(replicaRole(schema: name))";
                END IF;
            END $$
            """,
        ]
    }

    /// The tables and functions replication uses, in schema `name`, in order.
    private static func tables(schema name: String) -> [String] {
        let s = "\"\(name)\""
        return [
            "CREATE SCHEMA IF NOT EXISTS \(s)",
            "CREATE TABLE \(s).meta (key text PRIMARY KEY, value text NOT NULL)",
            """
            INSERT INTO \(s).meta(key, value) VALUES ('schema_version', '\(version)'),
                ('server_id', gen_random_uuid()::text), ('purge_horizon', '0')
            """,
            "CREATE TABLE \(s).feed (single boolean PRIMARY KEY DEFAULT true CHECK (single), value bigint NOT NULL)",
            "INSERT INTO \(s).feed(value) VALUES (0)",
            """
            CREATE TABLE \(s).documents (
                id text COLLATE "C" PRIMARY KEY,
                kind text COLLATE "C" NOT NULL,
                winner text COLLATE "C" NOT NULL,
                deleted boolean NOT NULL,
                sequence bigint NOT NULL,
                changed_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX documents_by_sequence ON \(s).documents(sequence)",
            """
            CREATE TABLE \(s).revisions (
                document text COLLATE "C" NOT NULL,
                revision text COLLATE "C" NOT NULL,
                parent text COLLATE "C",
                generation integer NOT NULL,
                digest text COLLATE "C" NOT NULL,
                deleted boolean NOT NULL,
                leaf boolean NOT NULL,
                body text,
                ancestors text[],
                PRIMARY KEY (document, revision))
            """,
            """
            CREATE TABLE \(s).checkpoints (
                replication text COLLATE "C" PRIMARY KEY,
                push text NOT NULL DEFAULT '',
                pull text NOT NULL DEFAULT '',
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE FUNCTION \(s).winners(document_ids text[]) RETURNS TABLE (document text, revision text, deleted boolean)
            LANGUAGE sql STABLE AS $$
                SELECT DISTINCT ON (r.document) r.document, r.revision, r.deleted FROM \(s).revisions AS r
                WHERE r.document = ANY(document_ids) AND r.leaf
                ORDER BY r.document, r.deleted ASC, r.generation DESC, r.digest COLLATE "C" DESC
            $$
            """,
            """
            CREATE FUNCTION \(s).winner(document_id text) RETURNS TABLE (revision text, deleted boolean)
            LANGUAGE sql STABLE AS $$ SELECT w.revision, w.deleted FROM \(s).winners(ARRAY[document_id]) AS w $$
            """,
        ]
    }

    /// The script a DBA can run instead of letting the library create the schema.
    /// The group role whose members may replicate through schema `name`: `<schema>_replica`.
    static func replicaRole(schema name: String) -> String { name + "_replica" }

    /// The SQL a DBA runs (as the schema's owner or a superuser, after ``script(schema:)``) to let the
    /// login role `user` replicate through schema `name`: the group role (made once, granted what a
    /// replicator uses), and the login role as its member, with no password: the DBA gives it one
    /// with psql's `\password` (which sends only a SCRAM verifier) or lets it in by certificate.
    static func userScript(user: String, schema name: String) -> String {
        let s = "\"\(name)\"", group = "\"\(replicaRole(schema: name))\"", role = "\"\(user)\""
        let groupName = replicaRole(schema: name)
        return """
            -- DocumentSync: login role \(user), replicating through schema \(name).
            -- Run as the schema's owner or a superuser, after the schema script (shapes sync --print-schema).
            BEGIN;
            DO $$ BEGIN
                IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(groupName)') THEN
                    CREATE ROLE \(group) NOLOGIN;
                END IF;
            END $$;
            -- Without access control, a replicator reads and writes every row of the schema (see "Users and
            -- connections"); with it (DocumentSync.accessScript), the group keeps only the functions that script grants.
            GRANT USAGE ON SCHEMA \(s) TO \(group);
            DO $$ BEGIN
                IF NOT EXISTS (SELECT FROM \(s).meta WHERE key = 'access') THEN
                    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(s) TO \(group);
                    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \(s) TO \(group);
                END IF;
            END $$;
            CREATE ROLE \(role) LOGIN IN ROLE \(group);
            COMMIT;
            -- Then give it a password (psql sends only a SCRAM-SHA-256 verifier, never the password):
            --   \\password \(user)
            -- or let it in by client certificate instead: a pg_hba.conf line such as
            --   hostssl all \(user) 0.0.0.0/0 cert
            -- and a certificate whose common name is \(user), signed by the CA in ssl_ca_file.

            """
    }

    static func script(schema name: String) -> String {
        "-- DocumentSync schema version \(version), in schema \(name); run in a database with UTF8 encoding.\nBEGIN;\n"
            + statements(schema: name).map { $0 + ";\n" }.joined() + "COMMIT;\n"
    }

    /// What a replicator finds in its schema.
    struct Installed {
        /// The server's identity (part of every replication id).
        let server: String
        /// Whether `purges` exists (a version 1 schema made before it, by a DBA who keeps creation to
        /// themselves, lacks it: the replicator then neither writes nor reads purge records).
        let purges: Bool
        /// Whether every addition exists.
        let complete: Bool
        /// Whether access control is on (``ServerAccess``): replicas then read and write only through
        /// the schema's functions.
        var access = false
    }

    /// The server's identity, after creating the schema when it is missing (or adding what a schema
    /// made before them lacks: ``additions(schema:)``) when `create` allows it.
    ///
    /// Replicators that start together serialize on a session-level advisory lock taken *before* the
    /// transaction that checks and creates: a transaction that began before another one's DDL committed
    /// can still see the catalog as it was, and would try to create the tables again.
    static func prepare(_ session: ServerSession, schema name: String, create: Bool) async throws -> Installed {
        let encoding = try await session.single(String.self, "SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()")
        guard encoding == "UTF8" else {
            throw DocumentSyncError.serverEncoding(database: session.address.database, found: encoding ?? "unknown")
        }
        if let found = try await installed(session, schema: name), found.complete || !create { return found }
        guard create else { throw DocumentSyncError.serverSchemaMissing(schema: name) }
        let key = "document_sync:" + name
        try await session.execute("SELECT pg_advisory_lock(hashtext(\(key)))")
        do {
            let identity = try await session.transaction {
                let found = try await installed(session, schema: name)
                if let found, found.complete { return found }
                let script = found == nil ? statements(schema: name) : additions(schema: name)
                for statement in script { try await session.execute(PostgresQuery(unsafeSQL: statement)) }
                guard let made = try await installed(session, schema: name) else {
                    throw DocumentSyncError.serverSchemaMissing(schema: name)
                }
                return made
            }
            try await session.execute("SELECT pg_advisory_unlock(hashtext(\(key)))")
            return identity
        } catch {
            // The lock goes with the session if this fails too (the connection is then closed).
            try? await session.execute("SELECT pg_advisory_unlock(hashtext(\(key)))")
            throw error
        }
    }

    /// The server id, and which additions exist, when schema `name` exists at a version this library
    /// knows; `nil` when it is absent.
    private static func installed(_ session: ServerSession, schema name: String) async throws -> Installed? {
        let exists = try await session.rows("""
            SELECT to_regclass(\("\"\(name)\".meta")) IS NOT NULL, to_regclass(\("\"\(name)\".current_documents")) IS NOT NULL,
                   to_regclass(\("\"\(name)\".purges")) IS NOT NULL, to_regprocedure(\("\"\(name)\".server_info()")) IS NOT NULL
            """, as: (Bool, Bool, Bool, Bool).self).first
        guard let exists, exists.0 else { return nil }
        // With access control on, replicas cannot read `meta`: the function tells what they need.
        let source = exists.3 ? "\"\(name)\".server_info()" : "\"\(name)\".meta"
        let rows = try await session.rows(PostgresQuery(unsafeSQL: "SELECT key, value FROM \(source)"), as: (String, String).self)
        let meta = Dictionary(rows, uniquingKeysWith: { a, _ in a })
        let found = Int(meta["schema_version"] ?? "") ?? 0
        guard found <= version else { throw DocumentSyncError.serverSchemaNewer(schema: name, found: found, supported: version) }
        return Installed(server: meta["server_id"] ?? "", purges: exists.2, complete: exists.1 && exists.2,
                         access: meta["access"] == "channels")
    }
}
