import Crypto
import Foundation

/// The recent checkpoints of one direction of a replication, newest first: `tag:position` entries, where
/// each write gets a fresh random tag. Both sides keep a copy. A replicator resumes from the newest
/// entry both copies share, so a copy that fell one batch behind (killed between the two writes) costs
/// one replayed batch, and copies with nothing in common (a restored backup, another server) start over.
package struct CheckpointHistory: Sendable, Equatable, CustomStringConvertible {
    package struct Entry: Sendable, Equatable {
        package let tag: String
        package let position: Int64
    }

    static let kept = 5
    package private(set) var entries: [Entry]

    /// The history a `tag:position …` text holds (empty for `nil`, and without entries it cannot read).
    package init(_ text: String?) {
        entries = (text ?? "").split(separator: " ").compactMap { item in
            let parts = item.split(separator: ":")
            guard parts.count == 2, let position = Int64(parts[1]) else { return nil }
            return Entry(tag: String(parts[0]), position: position)
        }
    }

    package var description: String { entries.map { "\($0.tag):\($0.position)" }.joined(separator: " ") }

    /// This history with a new newest entry at `position`.
    package func adding(_ position: Int64) -> CheckpointHistory {
        var copy = self
        let tag = String(UInt64.random(in: 1...UInt64.max), radix: 36)
        copy.entries.insert(Entry(tag: tag, position: position), at: 0)
        copy.entries = Array(copy.entries.prefix(Self.kept))
        return copy
    }

    /// Where to resume: the newest entry of `local` that `remote` also has; 0 when there is none.
    package static func resume(local: CheckpointHistory, remote: CheckpointHistory) -> (position: Int64, matched: CheckpointHistory) {
        for (index, entry) in local.entries.enumerated() where remote.entries.contains(entry) {
            return (entry.position, CheckpointHistory(entries: Array(local.entries[index...])))
        }
        return (0, CheckpointHistory(entries: []))
    }

    private init(entries: [Entry]) { self.entries = entries }
}

/// The identity of one replication: this store, this server, this schema and this filter. Checkpoints
/// are kept under it, so a change of any of them starts from zero instead of skipping documents.
enum ReplicationIdentity {
    static func make(replica: String, server: String, schema: String, kinds: Set<String>?) -> String {
        let filter = kinds.map { $0.sorted().joined(separator: ",") } ?? "*"
        let digest = SHA256.hash(data: Data([replica, server, schema, filter].joined(separator: "\u{0}").utf8))
        return digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
