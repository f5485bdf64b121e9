import Foundation

/// Access control on the server: channels, grants, and the functions through which replicas read and
/// write, so that PostgreSQL, not the replicas' code, decides who sees and changes what.
///
/// What ``script(schema:channelFields:bodyLimit:)`` adds to a schema (its statements can run again; each
/// run replaces the functions and the settings):
/// - `documents.channels` and `purges.channels`: the channels of each document, computed by the server
///   from its winning body with `document_channels(body)` (a deleted winner keeps the channels it had).
///   Existing documents get theirs when the script runs.
/// - `channel_grants(role, channel, writable)`: which roles (login or group) may read a channel, and
///   write it when `writable`. A member of a granted role has its grants. The channel `*` stands for
///   every channel (and for documents with no channel at all).
/// - `checkpoints.owner`: the login role that wrote each replication's checkpoints; no other role reads
///   or replaces them.
/// - `meta` keys `access` (`channels`), `channel_fields` and `body_limit`.
/// - Functions, `SECURITY DEFINER` with `search_path` pinned to `pg_catalog, pg_temp`, the only things
///   the replica group may run: `server_info()`, `tree(ids)`, `insert_leaves(…)`, `feed_page(…)`,
///   `feed_purges(…)`, `revisions_of(ids)`, `purged_among(ids)`, `checkpoint_get(…)`,
///   `checkpoint_set(…)` and `purge_tombstones(seconds)`. Every table privilege of the replica group
///   (and of `PUBLIC`) on the schema is revoked.
///
/// `insert_leaves` checks each leaf before anything is written: its revision identifier is recomputed
/// (`sha256()` over the parent, the deleted flag and the body, as `Revision` computes it), its
/// ancestors must count down one generation at a time, its body must be JSON (`{}` for a deletion)
/// within `body_limit` bytes, and the caller must have write grants on every channel of the document,
/// before and after. A refusal raises SQL state `DS001` with the document in `DETAIL` and the rule in the
/// message: the whole push is rolled back.
package enum ServerAccess {
    /// The SQL state of a refusal.
    package static let refusalState = "DS001"

    /// The default channel fields: `owner` (a string) and `channels` (a string or an array of strings).
    package static let defaultChannelFields = ["owner", "channels"]

    /// The default largest body, in bytes of UTF-8.
    package static let defaultBodyLimit = 1 << 20

    /// The functions the replica group may execute, with their argument types.
    static func api(schema s: String) -> [String] {
        [
            "\(s).server_info()",
            "\(s).tree(text[])",
            "\(s).insert_leaves(text[], text[], text[], boolean[], text[], text[], text[], bigint[], integer)",
            "\(s).feed_page(bigint, integer, text[])",
            "\(s).feed_purges(bigint, bigint, text[])",
            "\(s).revisions_of(text[])",
            "\(s).purged_among(text[])",
            "\(s).checkpoint_get(text, text)",
            "\(s).checkpoint_set(text, text, text)",
            "\(s).purge_tombstones(double precision)",
            "\(s).access_epoch()",
        ]
    }

    /// The script that turns access control on for schema `name` (after ``ServerSchema/script(schema:)``),
    /// run by the schema's owner or a superuser.
    static func script(schema name: String, channelFields: [String], bodyLimit: Int) -> String {
        let s = "\"\(name)\"", group = "\"\(ServerSchema.replicaRole(schema: name))\""
        let groupName = ServerSchema.replicaRole(schema: name)
        let fields = "ARRAY[" + channelFields.map { "'\($0)'" }.joined(separator: ", ") + "]::text[]"
        let lockKey = "'document_sync:\(name)'"
        let notify = "'\(NotificationChannel.name(schema: name))'"
        // The caller's grants, as an expression: through every role it is a member of.
        let readable = "\(s).caller_channels(false)"
        let pinned = "SET search_path = pg_catalog, pg_temp"
        // Whether channel list `c` is visible with grants `g`.
        func visible(_ c: String, _ g: String) -> String { "('*' = ANY(\(g)) OR coalesce(\(c) && \(g), false))" }
        let refuse = "RAISE EXCEPTION USING ERRCODE = '\(refusalState)'"
        return """
            -- DocumentSync access control for schema \(name): channels, grants, and the functions replicas use.
            -- Run as the schema's owner or a superuser, after the schema script. Running it again replaces
            -- the functions and settings; grants (\(name).channel_grants) are kept.
            BEGIN;
            ALTER TABLE \(s).documents ADD COLUMN IF NOT EXISTS channels text[];
            ALTER TABLE \(s).purges ADD COLUMN IF NOT EXISTS channels text[];
            ALTER TABLE \(s).checkpoints ADD COLUMN IF NOT EXISTS owner name;
            -- A document that left channels (its new winner is in fewer): its readers in those channels
            -- that can no longer read it remove their copies when their pull passes the position.
            CREATE TABLE IF NOT EXISTS \(s).removals (
                sequence bigint PRIMARY KEY,
                document text COLLATE "C" NOT NULL,
                kind text COLLATE "C" NOT NULL,
                channels text[] NOT NULL);
            CREATE TABLE IF NOT EXISTS \(s).channel_grants (
                role name NOT NULL,
                channel text COLLATE "C" NOT NULL,
                writable boolean NOT NULL DEFAULT false,
                PRIMARY KEY (role, channel));
            INSERT INTO \(s).meta(key, value) VALUES ('access', 'channels'),
                ('channel_fields', '\(channelFields.joined(separator: ","))'), ('body_limit', '\(bodyLimit)')
                ON CONFLICT (key) DO UPDATE SET value = excluded.value;

            -- The channel rule: the string or strings in the body's top-level fields \(channelFields.joined(separator: ", ")).
            -- Replace this function to compute channels another way (same signature, IMMUTABLE).
            CREATE OR REPLACE FUNCTION \(s).document_channels(body text) RETURNS text[]
            LANGUAGE plpgsql IMMUTABLE \(pinned) AS $$
            DECLARE
                parsed jsonb;
                field text;
                value jsonb;
                collected text[] := '{}';
            BEGIN
                BEGIN
                    parsed := body::jsonb;
                EXCEPTION WHEN others THEN
                    RETURN collected;
                END;
                IF jsonb_typeof(parsed) IS DISTINCT FROM 'object' THEN RETURN collected; END IF;
                FOREACH field IN ARRAY \(fields) LOOP
                    value := parsed -> field;
                    IF jsonb_typeof(value) = 'string' THEN
                        collected := collected || (value #>> '{}');
                    ELSIF jsonb_typeof(value) = 'array' THEN
                        collected := collected || ARRAY(SELECT e #>> '{}' FROM jsonb_array_elements(value) AS e WHERE jsonb_typeof(e) = 'string');
                    END IF;
                END LOOP;
                RETURN ARRAY(SELECT DISTINCT c FROM unnest(collected) AS c WHERE c <> '' ORDER BY c);
            END $$;

            UPDATE \(s).documents AS d SET channels = CASE WHEN d.deleted THEN coalesce(d.channels, '{}')
                ELSE \(s).document_channels((SELECT r.body FROM \(s).revisions AS r WHERE r.document = d.id AND r.revision = d.winner)) END;
            UPDATE \(s).purges SET channels = '{}' WHERE channels IS NULL;

            -- The caller's channels (writable ones only when `writing`), through every role it is a member of.
            CREATE OR REPLACE FUNCTION \(s).caller_channels(writing boolean) RETURNS text[]
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                SELECT coalesce(array_agg(DISTINCT g.channel), '{}') FROM \(s).channel_grants AS g
                JOIN pg_roles AS r ON r.rolname = g.role
                WHERE (g.writable OR NOT writing) AND pg_has_role(session_user, r.oid, 'MEMBER')
            $$;

            CREATE OR REPLACE FUNCTION \(s).server_info() RETURNS TABLE (key text, value text)
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                SELECT m.key, m.value FROM \(s).meta AS m
                WHERE m.key IN ('schema_version', 'server_id', 'purge_horizon', 'access', 'body_limit')
            $$;

            -- The revision trees of the given documents the caller may read.
            CREATE OR REPLACE FUNCTION \(s).tree(document_ids text[])
            RETURNS TABLE (document text, revision text, generation bigint, leaf boolean)
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                WITH granted AS (SELECT \(readable) AS c)
                SELECT r.document, r.revision, r.generation::int8, r.leaf
                FROM \(s).revisions AS r JOIN \(s).documents AS d ON d.id = r.document, granted
                WHERE r.document = ANY(document_ids) AND \(visible("d.channels", "granted.c"))
            $$;

            -- Inserts leaves a push found missing, after checking every one; see DocumentSync's
            -- "Users, channels and permissions".
            CREATE OR REPLACE FUNCTION \(s).insert_leaves(
                leaf_documents text[], leaf_kinds text[], leaf_revisions text[], leaf_deleted boolean[],
                leaf_bodies text[], leaf_ancestors text[], stem_documents text[], stem_generations bigint[],
                history_limit integer) RETURNS integer
            LANGUAGE plpgsql SECURITY DEFINER \(pinned) AS $$
            DECLARE
                writable text[] := \(s).caller_channels(true);
                body_limit bigint := (SELECT m.value::bigint FROM \(s).meta AS m WHERE m.key = 'body_limit');
                n integer := coalesce(cardinality(leaf_documents), 0);
                doc text;
                rev text;
                ancestry text[];
                parent text;
                generation bigint;
                expected text;
                affected text[];
                touched text[];
                counted integer;
            BEGIN
                IF coalesce(cardinality(leaf_kinds), 0) <> n OR coalesce(cardinality(leaf_revisions), 0) <> n
                   OR coalesce(cardinality(leaf_deleted), 0) <> n OR coalesce(cardinality(leaf_bodies), 0) <> n
                   OR coalesce(cardinality(leaf_ancestors), 0) <> n
                   OR coalesce(cardinality(stem_documents), 0) <> coalesce(cardinality(stem_generations), 0)
                   OR history_limit IS NULL OR history_limit < 1 THEN
                    \(refuse), MESSAGE = 'malformed call: arrays of different lengths or a history limit below 1';
                END IF;
                IF n = 0 THEN RETURN 0; END IF;
                -- The documents' locks, in one order, as every push and purge takes them.
                PERFORM count(pg_advisory_xact_lock(hashtext(\(lockKey)), k.k))
                FROM (SELECT DISTINCT hashtext(d) AS k FROM unnest(leaf_documents) AS d ORDER BY 1) AS k;
                FOR i IN 1..n LOOP
                    doc := leaf_documents[i];
                    rev := leaf_revisions[i];
                    IF doc IS NULL OR doc = '' OR octet_length(doc) > 1024 OR leaf_kinds[i] IS NULL OR leaf_kinds[i] = ''
                       OR rev IS NULL OR leaf_deleted[i] IS NULL OR leaf_bodies[i] IS NULL THEN
                        \(refuse), MESSAGE = 'a document needs an identifier (1 to 1024 bytes), a kind, a revision and a body',
                            DETAIL = coalesce(doc, '');
                    END IF;
                    IF octet_length(leaf_bodies[i]) > body_limit THEN
                        \(refuse), MESSAGE = format('body of %s bytes is over the limit of %s', octet_length(leaf_bodies[i]), body_limit),
                            DETAIL = doc;
                    END IF;
                    IF leaf_deleted[i] THEN
                        IF leaf_bodies[i] <> '{}' THEN
                            \(refuse), MESSAGE = 'a deletion''s body must be {}', DETAIL = doc;
                        END IF;
                    ELSE
                        BEGIN
                            PERFORM leaf_bodies[i]::json;
                        EXCEPTION WHEN others THEN
                            \(refuse), MESSAGE = 'body is not JSON', DETAIL = doc;
                        END;
                    END IF;
                    ancestry := coalesce(string_to_array(nullif(leaf_ancestors[i], ''), ' '), '{}');
                    IF rev !~ '^[1-9][0-9]{0,8}-[0-9a-f]{64}$' THEN
                        \(refuse), MESSAGE = format('revision %s is not <generation>-<sha256>', left(rev, 80)), DETAIL = doc;
                    END IF;
                    generation := split_part(rev, '-', 1)::bigint;
                    IF generation > 1 AND cardinality(ancestry) = 0 THEN
                        \(refuse), MESSAGE = format('revision %s comes without its parent', rev), DETAIL = doc;
                    END IF;
                    FOR k IN 1..coalesce(cardinality(ancestry), 0) LOOP
                        IF ancestry[k] !~ '^[1-9][0-9]{0,8}-[0-9a-f]{64}$' OR split_part(ancestry[k], '-', 1)::bigint <> generation - k THEN
                            \(refuse), MESSAGE = format('ancestor %s of revision %s is not of generation %s', left(ancestry[k], 80), rev, generation - k),
                                DETAIL = doc;
                        END IF;
                    END LOOP;
                    parent := coalesce(ancestry[1], '');
                    expected := generation::text || '-' || encode(sha256(convert_to(parent, 'UTF8') || '\\x00'::bytea
                        || CASE WHEN leaf_deleted[i] THEN '\\x31'::bytea ELSE '\\x30'::bytea END || '\\x00'::bytea
                        || convert_to(leaf_bodies[i], 'UTF8')), 'hex');
                    IF rev <> expected THEN
                        \(refuse), MESSAGE = format('revision %s does not match its parent and body (expected %s)', rev, expected), DETAIL = doc;
                    END IF;
                    -- The channels the document is in now, and those its new body puts it in (a deletion
                    -- keeps the document where it is).
                    affected := CASE WHEN leaf_deleted[i] THEN '{}'::text[] ELSE \(s).document_channels(leaf_bodies[i]) END;
                    IF NOT '*' = ANY(writable) THEN
                        IF NOT leaf_deleted[i] AND cardinality(affected) = 0 THEN
                            \(refuse), MESSAGE = 'a body in no channel can be written only with a grant of channel *', DETAIL = doc;
                        END IF;
                        affected := coalesce((SELECT d.channels FROM \(s).documents AS d WHERE d.id = doc), '{}') || affected;
                        IF cardinality(affected) = 0 THEN
                            \(refuse), MESSAGE = 'a document in no channel can be written only with a grant of channel *', DETAIL = doc;
                        END IF;
                        IF NOT affected <@ writable THEN
                            \(refuse), MESSAGE = format('writing channels %s needs write grants on each (granted: %s)', affected, writable),
                                DETAIL = doc;
                        END IF;
                    END IF;
                END LOOP;

                -- The ancestors, as inner nodes (kept when already there).
                INSERT INTO \(s).revisions(document, revision, parent, generation, digest, deleted, leaf)
                SELECT q.d, x.r, q.a[x.k + 1], split_part(x.r, '-', 1)::int8, split_part(x.r, '-', 2), false, false
                FROM (SELECT u.d, string_to_array(nullif(u.a, ''), ' ') AS a FROM unnest(leaf_documents, leaf_ancestors) AS u(d, a)) AS q,
                     unnest(q.a) WITH ORDINALITY AS x(r, k)
                ON CONFLICT DO NOTHING;
                WITH inserted AS (
                    INSERT INTO \(s).revisions(document, revision, parent, generation, digest, deleted, leaf, body, ancestors)
                    SELECT q.d, q.r, (string_to_array(nullif(q.a, ''), ' '))[1], split_part(q.r, '-', 1)::int8, split_part(q.r, '-', 2), q.x,
                        NOT EXISTS (SELECT 1 FROM \(s).revisions AS c WHERE c.document = q.d AND c.parent = q.r),
                        q.b, string_to_array(nullif(q.a, ''), ' ')
                    FROM unnest(leaf_documents, leaf_revisions, leaf_deleted, leaf_bodies, leaf_ancestors) AS q(d, r, x, b, a)
                    ON CONFLICT DO NOTHING RETURNING document)
                SELECT coalesce(array_agg(DISTINCT i.document ORDER BY i.document), '{}') INTO touched FROM inserted AS i;
                IF cardinality(touched) = 0 THEN RETURN 0; END IF;
                -- Every ancestor sent is an inner node now: it keeps no body.
                UPDATE \(s).revisions AS r SET leaf = false, body = NULL, ancestors = NULL
                FROM (SELECT u.d, x.r FROM unnest(leaf_documents, leaf_ancestors) AS u(d, a),
                      unnest(string_to_array(nullif(u.a, ''), ' ')) AS x(r)) AS q
                WHERE r.document = q.d AND r.revision = q.r AND r.leaf;
                DELETE FROM \(s).revisions AS r USING unnest(stem_documents, stem_generations) AS q(d, g)
                WHERE r.document = q.d AND q.d = ANY(touched) AND r.generation < q.g;
                -- The history limit below each tree's newest leaf, leaves included.
                DELETE FROM \(s).revisions AS r USING (
                    SELECT m.document, max(m.generation) AS g FROM \(s).revisions AS m
                    WHERE m.document = ANY(touched) AND m.leaf GROUP BY m.document) AS m
                WHERE r.document = m.document AND r.generation <= m.g - history_limit;
                -- Last: feed positions from the counter row, each document's winner and channels.
                WITH counter AS (UPDATE \(s).feed SET value = value + cardinality(touched) RETURNING value),
                kinds AS (SELECT DISTINCT ON (q.d) q.d, q.k FROM unnest(leaf_documents, leaf_kinds) AS q(d, k)
                          WHERE q.d = ANY(touched) ORDER BY q.d),
                previous AS (SELECT p.id, p.channels FROM \(s).documents AS p WHERE p.id = ANY(touched)),
                upserted AS (
                    INSERT INTO \(s).documents(id, kind, winner, deleted, sequence, changed_at, channels)
                    SELECT w.document, kinds.k, w.revision, w.deleted,
                           (SELECT value FROM counter) - cardinality(touched) + row_number() OVER (ORDER BY w.document), now(),
                           CASE WHEN w.deleted
                                THEN coalesce((SELECT d.channels FROM \(s).documents AS d WHERE d.id = w.document), '{}')
                                ELSE \(s).document_channels((SELECT r.body FROM \(s).revisions AS r
                                                            WHERE r.document = w.document AND r.revision = w.revision)) END
                    FROM \(s).winners(touched) AS w JOIN kinds ON kinds.d = w.document
                    ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, winner = excluded.winner, deleted = excluded.deleted,
                        sequence = excluded.sequence, changed_at = excluded.changed_at, channels = excluded.channels
                    RETURNING id, kind, sequence, channels),
                lost AS (
                    SELECT u.id, u.kind, u.sequence,
                           ARRAY(SELECT unnest(p.channels) EXCEPT SELECT unnest(u.channels)) AS channels
                    FROM upserted AS u JOIN previous AS p ON p.id = u.id),
                recorded AS (
                    INSERT INTO \(s).removals(sequence, document, kind, channels)
                    SELECT l.sequence, l.id, l.kind, l.channels FROM lost AS l WHERE cardinality(l.channels) > 0
                    RETURNING 1)
                SELECT count(*) INTO counted FROM upserted;
                PERFORM pg_notify(\(notify), (SELECT f.value FROM \(s).feed AS f)::text || ' ' || pg_backend_pid()::text);
                RETURN cardinality(touched);
            END $$;

            -- The leaves of the next documents of the feed the caller may read.
            CREATE OR REPLACE FUNCTION \(s).feed_page(after_position bigint, page_limit integer, kind_filter text[])
            RETURNS TABLE (sequence bigint, id text, kind text, revision text, deleted boolean, body text, ancestors text)
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                WITH granted AS (SELECT \(readable) AS c)
                SELECT d.sequence, d.id, d.kind, r.revision, r.deleted, r.body, coalesce(array_to_string(r.ancestors, ' '), '')
                FROM (SELECT x.id, x.kind, x.sequence FROM \(s).documents AS x, granted
                      WHERE x.sequence > after_position AND (kind_filter IS NULL OR x.kind = ANY(kind_filter))
                        AND \(visible("x.channels", "granted.c"))
                      ORDER BY x.sequence LIMIT greatest(page_limit, 1)) AS d
                JOIN \(s).revisions AS r ON r.document = d.id AND r.leaf
                ORDER BY d.sequence, r.revision
            $$;

            -- The purge records of documents the caller could read, and the removals of documents that
            -- left its channels: a pull removes its copies of both (keeping any with changes not pushed).
            CREATE OR REPLACE FUNCTION \(s).feed_purges(after_position bigint, upper_position bigint, kind_filter text[])
            RETURNS TABLE (sequence bigint, id text)
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                WITH granted AS (SELECT \(readable) AS c)
                SELECT x.sequence, x.id FROM (
                    SELECT p.sequence, p.id FROM \(s).purges AS p, granted
                    WHERE p.sequence > after_position AND (upper_position IS NULL OR p.sequence <= upper_position)
                      AND (kind_filter IS NULL OR p.kind = ANY(kind_filter)) AND \(visible("p.channels", "granted.c"))
                    UNION ALL
                    SELECT r.sequence, r.document FROM \(s).removals AS r, granted
                    WHERE r.sequence > after_position AND (upper_position IS NULL OR r.sequence <= upper_position)
                      AND (kind_filter IS NULL OR r.kind = ANY(kind_filter)) AND NOT '*' = ANY(granted.c) AND r.channels && granted.c
                      AND NOT EXISTS (SELECT 1 FROM \(s).documents AS d WHERE d.id = r.document AND \(visible("d.channels", "granted.c")))
                ) AS x
                ORDER BY x.sequence
            $$;

            -- A value that changes whenever the caller's readable channels change (a grant added or
            -- removed, a role joined or left): a replica that finds it changed pulls again from the start
            -- and removes its copies of what it can no longer read.
            CREATE OR REPLACE FUNCTION \(s).access_epoch() RETURNS text
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                SELECT md5(array_to_string(ARRAY(SELECT c FROM unnest(\(readable)) AS c ORDER BY c), chr(10)))
            $$;

            CREATE OR REPLACE FUNCTION \(s).revisions_of(document_ids text[]) RETURNS TABLE (document text, revision text)
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                SELECT t.document, t.revision FROM \(s).tree(document_ids) AS t
            $$;

            CREATE OR REPLACE FUNCTION \(s).purged_among(document_ids text[]) RETURNS TABLE (id text)
            LANGUAGE sql STABLE SECURITY DEFINER \(pinned) AS $$
                WITH granted AS (SELECT \(readable) AS c)
                SELECT DISTINCT p.id FROM \(s).purges AS p, granted
                WHERE p.id = ANY(document_ids) AND \(visible("p.channels", "granted.c"))
            $$;

            -- A replication's checkpoints belong to the login role that wrote them first.
            CREATE OR REPLACE FUNCTION \(s).checkpoint_get(replication_id text, direction text) RETURNS text
            LANGUAGE plpgsql STABLE SECURITY DEFINER \(pinned) AS $$
            DECLARE
                stored record;
            BEGIN
                IF direction IS NULL OR direction NOT IN ('push', 'pull') THEN
                    \(refuse), MESSAGE = 'a checkpoint''s direction is push or pull';
                END IF;
                SELECT c.push, c.pull, c.owner INTO stored FROM \(s).checkpoints AS c WHERE c.replication = replication_id;
                IF NOT FOUND THEN RETURN NULL; END IF;
                IF stored.owner IS NOT NULL AND stored.owner <> session_user THEN
                    \(refuse), MESSAGE = format('the checkpoints of replication %s belong to another role', replication_id);
                END IF;
                RETURN CASE WHEN direction = 'push' THEN stored.push ELSE stored.pull END;
            END $$;

            CREATE OR REPLACE FUNCTION \(s).checkpoint_set(replication_id text, direction text, history text) RETURNS void
            LANGUAGE plpgsql SECURITY DEFINER \(pinned) AS $$
            DECLARE
                changed integer;
            BEGIN
                IF direction IS NULL OR direction NOT IN ('push', 'pull') OR replication_id IS NULL
                   OR octet_length(replication_id) > 1024 OR history IS NULL OR octet_length(history) > 65536 THEN
                    \(refuse), MESSAGE = 'a checkpoint needs a replication (up to 1024 bytes), push or pull, and a history up to 64 KiB';
                END IF;
                INSERT INTO \(s).checkpoints AS c(replication, push, pull, owner)
                VALUES (replication_id, CASE WHEN direction = 'push' THEN history ELSE '' END,
                        CASE WHEN direction = 'pull' THEN history ELSE '' END, session_user)
                ON CONFLICT (replication) DO UPDATE
                    SET push = CASE WHEN direction = 'push' THEN excluded.push ELSE c.push END,
                        pull = CASE WHEN direction = 'pull' THEN excluded.pull ELSE c.pull END,
                        owner = coalesce(c.owner, excluded.owner), updated_at = now()
                    WHERE c.owner IS NULL OR c.owner = session_user;
                GET DIAGNOSTICS changed = ROW_COUNT;
                IF changed = 0 THEN
                    \(refuse), MESSAGE = format('the checkpoints of replication %s belong to another role', replication_id);
                END IF;
            END $$;

            -- Purging expired tombstones is for roles granted every channel (*), such as a DBA's job or an
            -- administrator's replica: for any other role it does nothing and returns NULL (every replicator
            -- asks, with its tombstone retention, at the end of its pull).
            CREATE OR REPLACE FUNCTION \(s).purge_tombstones(retention_seconds double precision) RETURNS integer
            LANGUAGE plpgsql SECURITY DEFINER \(pinned) AS $$
            DECLARE
                candidates text[];
                purged integer;
            BEGIN
                IF NOT '*' = ANY(\(s).caller_channels(true)) OR retention_seconds IS NULL OR retention_seconds < 0 THEN
                    RETURN NULL;
                END IF;
                candidates := ARRAY(SELECT d.id FROM \(s).documents AS d
                                    WHERE d.deleted AND d.changed_at < now() - make_interval(secs => retention_seconds)
                                    ORDER BY d.id LIMIT 10000);
                IF cardinality(candidates) = 0 THEN RETURN 0; END IF;
                PERFORM count(pg_advisory_xact_lock(hashtext(\(lockKey)), k.k))
                FROM (SELECT DISTINCT hashtext(d) AS k FROM unnest(candidates) AS d ORDER BY 1) AS k;
                WITH gone AS (
                    DELETE FROM \(s).documents AS d
                    WHERE d.id = ANY(candidates) AND d.deleted AND d.changed_at < now() - make_interval(secs => retention_seconds)
                      AND NOT EXISTS (SELECT 1 FROM \(s).revisions AS r WHERE r.document = d.id AND r.leaf AND NOT r.deleted)
                    RETURNING d.id, d.kind, d.sequence, d.channels),
                tree AS (DELETE FROM \(s).revisions WHERE document IN (SELECT gone.id FROM gone)),
                counter AS (UPDATE \(s).feed SET value = value + (SELECT count(*) FROM gone) RETURNING value),
                recorded AS (
                    INSERT INTO \(s).purges(sequence, id, kind, channels)
                    SELECT (SELECT value FROM counter) - (SELECT count(*) FROM gone) + row_number() OVER (ORDER BY gone.id),
                           gone.id, gone.kind, coalesce(gone.channels, '{}') FROM gone
                    RETURNING 1),
                horizon AS (
                    UPDATE \(s).meta SET value = greatest(value::bigint, coalesce((SELECT max(gone.sequence) FROM gone), 0))::text
                    WHERE key = 'purge_horizon' RETURNING 1)
                SELECT count(*) INTO purged FROM recorded;
                RETURN purged;
            END $$;

            -- Replicas use the functions above and nothing else of the schema.
            REVOKE ALL ON ALL TABLES IN SCHEMA \(s) FROM PUBLIC;
            REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA \(s) FROM PUBLIC;
            DO $$ BEGIN
                IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(groupName)') THEN
                    CREATE ROLE \(group) NOLOGIN;
                END IF;
            END $$;
            REVOKE ALL ON ALL TABLES IN SCHEMA \(s) FROM \(group);
            REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA \(s) FROM \(group);
            GRANT USAGE ON SCHEMA \(s) TO \(group);
            GRANT EXECUTE ON FUNCTION \(api(schema: s).joined(separator: ", ")) TO \(group);
            COMMIT;
            -- Then grant channels, for example:
            --   INSERT INTO \(name).channel_grants(role, channel, writable) VALUES ('alice', 'alice', true), ('alice', 'team', false);

            """
    }
}
