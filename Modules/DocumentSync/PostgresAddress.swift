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
    /// libpq's `sslmode` values map onto these three: `allow` reads as ``disable``, `verify-ca` and
    /// `verify-full` as ``require``:
    ///
    /// ```swift
    /// var address = PostgresAddress(host: "db.example.com", user: "app")
    /// address.tls = .require
    /// ```
    public enum TLSMode: String, Sendable, Equatable {
        /// Never (loopback and trusted networks).
        case disable
        /// When the server offers it.
        case prefer
        /// Always; the connection fails without it (the certificate is verified against the system roots).
        case require
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

    /// An address from its parts, with libpq's defaults for the ones left out.
    ///
    /// - Parameters:
    ///   - host: The server's host name or IP address.
    ///   - port: The server's TCP port.
    ///   - user: The role to log in as.
    ///   - database: The database that holds the replication schema.
    ///   - password: The password, or `nil` to look it up as ``resolvedPassword(environment:)`` does.
    ///   - tls: Whether the connection uses TLS.
    public init(host: String = "127.0.0.1", port: Int = 5432, user: String, database: String = "postgres",
                password: String? = nil, tls: TLSMode = .disable) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.tls = tls
    }

    /// Parses `postgres://user[:password]@host[:port][/database][?sslmode=disable|prefer|require]`
    /// (also `postgresql://`). The user defaults to `$PGUSER`, then `$USER`.
    ///
    /// The database defaults to the user's name, the port to 5432, TLS to ``TLSMode/disable``.
    /// `sslmode` also accepts libpq's `allow`, `verify-ca` and `verify-full` (see ``TLSMode``).
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
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"), ("sslmode", "allow"): tls = .disable
            case ("sslmode", "prefer"): tls = .prefer
            case ("sslmode", "require"), ("sslmode", "verify-ca"), ("sslmode", "verify-full"): tls = .require
            case ("sslmode", let other): throw .invalidAddress("sslmode \(other) is not one of disable, prefer, require")
            default: throw .invalidAddress("unknown parameter \(item.name) in \(Self.redacted(text))")
            }
        }
        self.init(host: host, port: components.port ?? 5432, user: user, database: path.isEmpty ? user : path,
                  password: components.password, tls: tls)
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
