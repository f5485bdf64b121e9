import Foundation

/// Where the PostgreSQL server is and who to log in as. The password is never required in the
/// address: it comes from ``password`` (the API), else `PGPASSWORD`, else `PGPASSFILE` or
/// `~/.pgpass` (read only when it is not readable by others, as libpq does).
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Equatable {
        /// Never (loopback and trusted networks).
        case disable
        /// When the server offers it.
        case prefer
        /// Always; the connection fails without it (the certificate is verified against the system roots).
        case require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// A password given through the API (or in the URL); `nil` to look it up as libpq does.
    public var password: String?
    public var tls: TLSMode

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
