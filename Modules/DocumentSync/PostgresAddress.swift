import Foundation

/// Where the PostgreSQL server is and who to log in as. The password is never required in the
/// address: it comes from ``password`` (the API), else `PGPASSWORD`, else `PGPASSFILE` or
/// `~/.pgpass` (read only when it is not readable by others, as libpq does).
///
/// Parse one from a URL, or build it from its parts:
///
/// ```swift
/// let address = try PostgresAddress(url: "postgres://app@db.example.com:5433/shapes?sslmode=require")
/// let local = PostgresAddress(user: "app", database: "shapes")   // 127.0.0.1:5432, no TLS
/// print(address)   // "postgres://app@db.example.com:5433/shapes" (never the password)
/// ```
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS.
    ///
    /// libpq's `sslmode` values map onto these (`allow` reads as ``disable``). Every mode that uses TLS
    /// verifies the server's certificate, against ``rootCertificatePath`` when given (libpq's
    /// `sslrootcert`), else the system's roots; ``require`` verifies it as fully as ``verifyFull``,
    /// which is stricter than libpq's `require` (which encrypts without checking who answers):
    ///
    /// ```swift
    /// var address = PostgresAddress(host: "db.example.com", user: "alice")
    /// address.tls = .verifyFull
    /// address.rootCertificatePath = "/etc/myapp/db-root.crt"
    /// ```
    public enum TLSMode: String, Sendable, Equatable {
        /// Never (loopback and trusted networks).
        case disable
        /// When the server offers it (then verified as ``verifyFull``).
        case prefer
        /// Always; the connection fails without it. The certificate is verified as ``verifyFull``.
        case require
        /// Always, the certificate chain verified up to a trusted root, the host name not checked
        /// (libpq's `verify-ca`): for a server reached by an address its certificate does not name.
        case verifyCA = "verify-ca"
        /// Always, the certificate chain verified and the host (name or IP address) checked against
        /// the certificate's (libpq's `verify-full`).
        case verifyFull = "verify-full"
    }

    /// The server's host name or IP address.
    public var host: String
    /// The server's TCP port (5432 unless the URL names another).
    public var port: Int
    /// The PostgreSQL role to log in as.
    public var user: String
    /// The database that holds the replication schema.
    public var database: String
    /// A password given through the API (or in the URL); `nil` to look it up as libpq does.
    public var password: String?
    /// Whether the connection uses TLS (``TLSMode/disable`` by default: loopback).
    public var tls: TLSMode
    /// A PEM file of the certificate authorities to trust for the server's certificate instead of the
    /// system's (libpq's `sslrootcert`): a private CA's root.
    public var rootCertificatePath: String?
    /// A PEM file of this client's certificate (libpq's `sslcert`), for a server that authenticates
    /// replicas by certificate (`cert` in `pg_hba.conf`): its common name is the role logged in as.
    public var clientCertificatePath: String?
    /// The PEM file of the private key of ``clientCertificatePath`` (libpq's `sslkey`).
    public var clientKeyPath: String?

    /// An address from its parts, with libpq's defaults for the ones left out.
    ///
    /// - Parameters:
    ///   - host: The server's host name or IP address.
    ///   - port: The server's TCP port.
    ///   - user: The role to log in as.
    ///   - database: The database that holds the replication schema.
    ///   - password: The password, or `nil` to look it up as ``resolvedPassword(environment:)`` does.
    ///   - tls: Whether the connection uses TLS.
    ///   - rootCertificatePath: The certificate authorities to trust instead of the system's.
    ///   - clientCertificatePath: This client's certificate, for certificate authentication.
    ///   - clientKeyPath: That certificate's private key.
    public init(host: String = "127.0.0.1", port: Int = 5432, user: String, database: String = "postgres",
                password: String? = nil, tls: TLSMode = .disable, rootCertificatePath: String? = nil,
                clientCertificatePath: String? = nil, clientKeyPath: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.tls = tls
        self.rootCertificatePath = rootCertificatePath
        self.clientCertificatePath = clientCertificatePath
        self.clientKeyPath = clientKeyPath
    }

    /// Parses `postgres://user[:password]@host[:port][/database][?sslmode=…&sslrootcert=…&sslcert=…&sslkey=…]`
    /// (also `postgresql://`). The user defaults to `$PGUSER`, then `$USER`.
    ///
    /// The database defaults to the user's name, the port to 5432, TLS to ``TLSMode/disable``.
    /// `sslmode` takes libpq's `disable`, `allow`, `prefer`, `require`, `verify-ca` and `verify-full`
    /// (see ``TLSMode``); `sslrootcert`, `sslcert` and `sslkey` are paths of PEM files, as in libpq.
    ///
    /// ```swift
    /// let address = try PostgresAddress(url: "postgres://app@127.0.0.1/shapes")
    /// ```
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - environment: Where `PGUSER` and `USER` are read; the process's environment by default.
    /// - Throws: ``DocumentSyncError/invalidAddress(_:)`` when `text` is not a `postgres://` or
    ///   `postgresql://` URL, has no host, or has a query parameter other than a known `sslmode`
    ///   (the password is masked in the message).
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(DocumentSyncError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              scheme == "postgres" || scheme == "postgresql" else {
            throw .invalidAddress("\(Self.redacted(text)) is not a postgres:// URL")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidAddress("\(Self.redacted(text)) has no host") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let user = components.user ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        var tls = TLSMode.disable
        var files: [String: String] = [:]
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"), ("sslmode", "allow"): tls = .disable
            case ("sslmode", "prefer"): tls = .prefer
            case ("sslmode", "require"): tls = .require
            case ("sslmode", "verify-ca"): tls = .verifyCA
            case ("sslmode", "verify-full"): tls = .verifyFull
            case ("sslmode", let other):
                throw .invalidAddress("sslmode \(other) is not one of disable, allow, prefer, require, verify-ca, verify-full")
            case ("sslrootcert", let path), ("sslcert", let path), ("sslkey", let path):
                guard !path.isEmpty else { throw .invalidAddress("\(item.name) in \(Self.redacted(text)) names no file") }
                files[item.name] = path
            default: throw .invalidAddress("unknown parameter \(item.name) in \(Self.redacted(text))")
            }
        }
        self.init(host: host, port: components.port ?? 5432, user: user, database: path.isEmpty ? user : path,
                  password: components.password, tls: tls, rootCertificatePath: files["sslrootcert"],
                  clientCertificatePath: files["sslcert"], clientKeyPath: files["sslkey"])
    }

    /// The address without the password: safe to print and log.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// The password to use: ``password``, else `PGPASSWORD`, else the first matching `.pgpass` line.
    ///
    /// The `.pgpass` file is `PGPASSFILE`, else `~/.pgpass`; it is ignored when its group or others may
    /// read it. A line matches when each of its host, port, database and user fields is this address's
    /// or `*`.
    ///
    /// - Parameter environment: Where `PGPASSWORD`, `PGPASSFILE` and `HOME` are read; the process's
    ///   environment by default.
    /// - Returns: The password, or `nil` when none is found (the server may not need one).
    public func resolvedPassword(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let password { return password }
        if let fromEnvironment = environment["PGPASSWORD"] { return fromEnvironment }
        let file = environment["PGPASSFILE"]
            ?? (environment["HOME"].map { $0 + "/.pgpass" } ?? NSHomeDirectory() + "/.pgpass")
        return passwordFile(at: file)
    }

    private func passwordFile(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 == 0,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.pgpassFields(line)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// Splits a `.pgpass` line at unescaped colons, removing the backslash escapes.
    static func pgpassFields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped { current.append(character); escaped = false }
            else if character == "\\" { escaped = true }
            else if character == ":" { fields.append(current); current = "" }
            else { current.append(character) }
        }
        fields.append(current)
        return fields
    }

    private static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(address)"
    }
}
