/// Which way changes move in a replication; each direction keeps a checkpoint history of its own on
/// both sides.
package enum ReplicationDirection: String, Sendable, CaseIterable {
    /// Local changes going up to the server.
    case push
    /// The server's changes coming down to this store.
    case pull
}
