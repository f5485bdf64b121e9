import DocumentStore
import Foundation
import PostgresNIO

/// Why a synchronization failed. Each case says what and where; ``isTransient`` says whether trying
/// again later can help (a continuous replicator retries those with backoff, and goes on retrying the
/// others too, but reports them as errors rather than as being offline).
///
/// ```swift
/// do {
///     try await sync.run()
/// } catch let error where error.isTransient {
///     print("try again later: \(error)")              // server down, deadlock, store busy
/// } catch {
///     print("synchronization failed: \(error)")       // bad address, password, schema...
/// }
/// ```
public enum DocumentSyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server address is not a `postgres://` URL this library understands.
    case invalidAddress(String)
    /// The schema name is not a plain identifier (letters, digits, `_`, not starting with a digit).
    case invalidSchemaName(String)
    /// The role name given to ``DocumentSync/userScript(user:schema:)`` is not a plain identifier
    /// (lowercase letters, digits, `_`, not starting with a digit).
    case invalidRoleName(String)
    /// The server could not be reached, or the connection broke (it is down, restarting or unreachable).
    case serverUnavailable(address: String, cause: String)
    /// The server refused the user name or password.
    case authenticationFailed(address: String, user: String, cause: String)
    /// The server's schema was made by a newer version of this library.
    case serverSchemaNewer(schema: String, found: Int, supported: Int)
    /// The server's schema is missing and this replicator may not create it (a DBA runs the script).
    case serverSchemaMissing(schema: String)
    /// The database does not store text as UTF-8, so documents could not come back exactly.
    case serverEncoding(database: String, found: String)
    /// A statement failed on the server (SQLSTATE and message).
    case server(sqlState: String, message: String)
    /// A revision from the server does not match its own body or ancestry (the digest differs).
    case invalidRevision(identifier: String, revision: String, reason: String)
    /// The local store failed.
    case local(DocumentStoreError)
    /// The synchronization was cancelled.
    case cancelled
    /// The server refused what this replica sent, by a rule of its access control (see
    /// <doc:UsersChannelsAndPermissions>): `rule` says which, and `document` names the document when
    /// one was at fault. Nothing of the refused push was kept, and the local store is as it was.
    case refused(document: String?, rule: String)

    /// Whether waiting and trying again may succeed without anyone changing anything.
    public var isTransient: Bool {
        switch self {
        case .serverUnavailable: true
        case .server(let state, _):
            // Serialization failures and deadlocks, lock timeouts, too many connections, shutdowns and
            // "cannot connect now".
            ["40001", "40P01", "55P03", "53300", "57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
        case .local(.busyTimeout): true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .invalidAddress(let why): "invalid PostgreSQL address: \(why)"
        case .invalidSchemaName(let name): "\"\(name)\" is not a valid schema name (letters, digits and _ only)"
        case .invalidRoleName(let name): "\"\(name)\" is not a valid role name (lowercase letters, digits and _ only)"
        case .serverUnavailable(let address, let cause): "PostgreSQL at \(address) is unavailable: \(cause)"
        case .authenticationFailed(let address, let user, let cause):
            cause.localizedCaseInsensitiveContains("certificate")
                ? "PostgreSQL at \(address) refused user \(user): \(cause) (the client certificate's common name must be the role's name, signed by the server's ssl_ca_file)"
                : "PostgreSQL at \(address) refused user \(user): \(cause) (the password comes from the API, PGPASSWORD or ~/.pgpass)"
        case .serverSchemaNewer(let schema, let found, let supported):
            "schema \(schema) on the server has version \(found); this program knows versions up to \(supported)"
        case .serverSchemaMissing(let schema):
            "schema \(schema) is not on the server; run the script from `DocumentSync.schemaScript` or allow creating it"
        case .serverEncoding(let database, let found): "database \(database) uses encoding \(found); DocumentSync needs UTF8"
        case .server(let state, let message): "PostgreSQL error \(state): \(message)"
        case .invalidRevision(let identifier, let revision, let reason): "document \(identifier), revision \(revision): \(reason)"
        case .local(let error): "local store: \(error)"
        case .cancelled: "synchronization cancelled"
        case .refused(let document, let rule):
            document.map { "the server refused document \($0): \(rule)" } ?? "the server refused: \(rule)"
        }
    }

    /// Classifies any error thrown while talking to the server or the local store.
    static func classify(_ error: any Error, address: PostgresAddress) -> DocumentSyncError {
        if let error = error as? DocumentSyncError { return error }
        if let error = error as? DocumentStoreError { return .local(error) }
        if error is CancellationError { return .cancelled }
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] {
                let message = error.serverInfo?[.message] ?? "\(error.code)"
                if state == ServerAccess.refusalState {
                    let detail = error.serverInfo?[.detail]
                    return .refused(document: detail?.isEmpty == false ? detail : nil, rule: message)
                }
                if state == "28P01" || state == "28000" {
                    return .authenticationFailed(address: address.description, user: address.user, cause: message)
                }
                if state == "57P01" || state == "57P02" || state == "57P03" || state.hasPrefix("08") {
                    return .serverUnavailable(address: address.description, cause: message)
                }
                return .server(sqlState: state, message: message)
            }
            switch error.code {
            case .authMechanismRequiresPassword, .saslError, .unsupportedAuthMechanism:
                return .authenticationFailed(address: address.description, user: address.user, cause: "\(error.code)")
            case .queryCancelled: return .cancelled
            default:
                let cause = error.underlying.map { "\($0)" } ?? "\(error.code)"
                return .serverUnavailable(address: address.description, cause: cause)
            }
        }
        // NIO's connection and channel errors: the server is not there, or went away.
        return .serverUnavailable(address: address.description, cause: "\(error)")
    }
}
