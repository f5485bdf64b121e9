/// The `LISTEN`/`NOTIFY` channel a schema's pushes announce themselves on. The payload is the feed
/// counter after the push and the pushing connection's backend process id, separated by a space.
enum NotificationChannel {
    static func name(schema: String) -> String { "document_sync_" + schema }

    /// Whether a payload announces a push made on the connection served by backend `pid`.
    static func isOwn(_ payload: String, backendPID pid: Int32) -> Bool {
        payload.split(separator: " ").last.flatMap { Int32($0) } == pid && payload.contains(" ")
    }
}
