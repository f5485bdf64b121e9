import Foundation
import PostgresNIO
import Synchronization

/// One connection to the server, with the few ways DocumentSync uses it. Errors come out classified
/// as ``DocumentSyncError``.
package final class ServerSession: Sendable {
    let address: PostgresAddress
    let connection: PostgresConnection
    private let logger: Logger
    /// How long a statement may go without an answer before the connection is given up as broken.
    let statementTimeout: Duration
    /// The server process serving this connection (`pg_backend_pid()`): a notification this
    /// connection's own push sent carries it.
    private let backend = Atomic<Int32>(0)
    var backendPID: Int32 { backend.load(ordering: .relaxed) }

    private init(address: PostgresAddress, connection: PostgresConnection, logger: Logger, statementTimeout: Duration) {
        self.address = address
        self.connection = connection
        self.logger = logger
        self.statementTimeout = statementTimeout
    }

    /// The TLS settings of `address`: its trusted roots (the system's by default), its client
    /// certificate and key, and how much of the server's certificate to verify.
    private static func tlsContext(_ address: PostgresAddress, verification: CertificateVerification) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = verification
        if let root = address.rootCertificatePath { configuration.trustRoots = .file(root) }
        if let certificate = address.clientCertificatePath {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
        }
        if let key = address.clientKeyPath { configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)) }
        return try NIOSSLContext(configuration: configuration)
    }

    /// Connects and logs in, or fails with `.serverUnavailable` or `.authenticationFailed`. The
    /// connection shows as `applicationName` in `pg_stat_activity` (`document_sync` by default).
    package static func open(_ address: PostgresAddress, connectTimeout: Duration, statementTimeout: Duration = .seconds(60),
                     applicationName: String = "document_sync") async throws(DocumentSyncError) -> ServerSession {
        do {
            let tls: PostgresConnection.Configuration.TLS
            switch address.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try tlsContext(address, verification: .fullVerification))
            case .require, .verifyFull: tls = .require(try tlsContext(address, verification: .fullVerification))
            case .verifyCA: tls = .require(try tlsContext(address, verification: .noHostnameVerification))
            }
            var configuration = PostgresConnection.Configuration(
                host: address.host, port: address.port, username: address.user,
                password: address.resolvedPassword(), database: address.database, tls: tls)
            let (seconds, attoseconds) = connectTimeout.components
            configuration.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let logger = Logger(label: "DocumentSync")
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            let session = ServerSession(address: address, connection: connection, logger: logger, statementTimeout: statementTimeout)
            // The batch statements' estimated costs cross PostgreSQL's JIT threshold, and compiling them
            // costs more than running them (it halved the insert's time in sync-bench). One statement
            // sets it, names the connection for pg_stat_activity, and learns the backend's process id.
            do {
                let pid = try await session.single(Int32.self, """
                    SELECT pg_backend_pid() FROM (SELECT set_config('jit', 'off', false),
                                                         set_config('application_name', \(applicationName), false)) AS settings
                    """, within: connectTimeout)
                session.backend.store(pid ?? 0, ordering: .relaxed)
            } catch {
                // The caller never sees this session to close it.
                await session.close()
                throw error
            }
            return session
        } catch {
            throw DocumentSyncError.classify(error, address: address)
        }
    }

    package func close() async {
        try? await connection.close()
    }

    /// A query on a connection the server already closed would wait forever: fail it at once instead.
    private func checkOpen() throws(DocumentSyncError) {
        if connection.isClosed { throw .serverUnavailable(address: address.description, cause: "the server closed the connection") }
    }

    /// Runs `work` (one statement), or, when no answer comes within ``statementTimeout`` (a network
    /// that dropped the connection without closing it), closes the connection and fails with
    /// `.serverUnavailable`. The statement runs in a task of its own, so the caller is freed either way.
    private func bounded<R: Sendable>(within limit: Duration? = nil, _ work: @escaping @Sendable () async throws -> R) async throws -> R {
        let gate = ResumeGate()
        let (timeout, connection, address) = (limit ?? statementTimeout, connection, address)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let timer = Task {
                do { try await Task.sleep(for: timeout) } catch { return }
                guard gate.claim() else { return }
                connection.close().whenComplete { _ in }
                continuation.resume(throwing: DocumentSyncError.serverUnavailable(
                    address: address.description, cause: "no answer within \(timeout); the connection was closed"))
            }
            Task {
                let result: Result<R, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                timer.cancel()
                if gate.claim() { continuation.resume(with: result) }
            }
        }
    }

    /// Every row of `query`, read by postgres-nio's collecting API rather than its demand-driven
    /// `PostgresRowSequence`. postgres-nio 1.33.2 traps (`RowStreamStateMachine`: "How can we
    /// receive a body part, after a channelReadComplete, but no read has been forwarded yet") when the
    /// server ends the connection while that sequence waits for its reader with rows in the socket: a
    /// server crash during a pull of large rows killed the replica process. The collecting API asks
    /// for more rows as each batch arrives, on the connection's event loop, so the state it traps in
    /// never occurs; the end of the connection is an error instead (`EndedMidResultTests`). Every
    /// caller here keeps all rows anyway, so nothing is lost by not streaming them.
    private static func collect(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> [PostgresRow] {
        let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
        return try await result.get().rows
    }

    /// Runs a statement and discards its rows; `limit` replaces the statement timeout for this one.
    package func execute(_ query: PostgresQuery, within limit: Duration? = nil) async throws(DocumentSyncError) {
        try checkOpen()
        do {
            _ = try await bounded(within: limit) { [connection, logger] in
                try await Self.collect(query, on: connection, logger: logger)
            }
        } catch {
            throw DocumentSyncError.classify(error, address: address)
        }
    }

    /// The rows of a query, decoded.
    package func rows<each Column: PostgresDecodable & Sendable>(_ query: PostgresQuery, as types: (repeat each Column).Type) async throws(DocumentSyncError)
        -> [(repeat each Column)] {
        try checkOpen()
        do {
            return try await bounded { [connection, logger] in
                try await Self.collect(query, on: connection, logger: logger).map { try $0.decode((repeat each Column).self) }
            }
        } catch {
            throw DocumentSyncError.classify(error, address: address)
        }
    }

    /// The first column of the first row, or `nil` when there is no row.
    func single<Value: PostgresDecodable & Sendable>(_ type: Value.Type, _ query: PostgresQuery,
                                                     within limit: Duration? = nil) async throws(DocumentSyncError) -> Value?
        where Value._DecodableType == Value {
        try checkOpen()
        do {
            return try await bounded(within: limit) { [connection, logger] () async throws -> Value? in
                try await Self.collect(query, on: connection, logger: logger).first?.decode(Value?.self) ?? nil
            }
        } catch {
            throw DocumentSyncError.classify(error, address: address)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. `begin`
    /// opens it (a read-only snapshot, say, with `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`).
    func transaction<R: Sendable>(begin: PostgresQuery = "BEGIN", _ body: () async throws -> R) async throws -> R {
        try await execute(begin)
        do {
            let result = try await body()
            try await execute("COMMIT")
            return result
        } catch {
            try? await execute("ROLLBACK")
            throw DocumentSyncError.classify(error, address: address)
        }
    }
}

/// Lets exactly one of two racing tasks resume a continuation.
final class ResumeGate: Sendable {
    private let claimed = Atomic<Bool>(false)
    /// `true` for the first caller only.
    func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
}
