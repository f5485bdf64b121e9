import DocumentStore
import Foundation
import Synchronization

/// A document that counts how often the store builds one, per store file (so tests running in
/// parallel, each with its own file, never see each other's counts).
final class Tally: Persistable {
    static let kind = "Tally"
    private static let builds = Mutex<[String: Int]>([:])

    let identifier: String
    var number: Int

    init(identifier: String, number: Int) {
        self.identifier = identifier
        self.number = number
    }

    init?(with json: JSON, from persistence: Persistence) throws {
        Self.builds.withLock { $0[persistence.url.path, default: 0] += 1 }
        identifier = ""
        number = try PropertyReader(json, from: persistence).value("number")
    }

    /// How many objects the store in `persistence`'s file has built so far.
    static func built(in persistence: Persistence) -> Int {
        builds.withLock { $0[persistence.url.path] ?? 0 }
    }

    /// The identifier of the `index`th tally: zero-padded, so identifier order is number order.
    static func identifier(_ index: Int) -> String {
        "tally-" + String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index)
    }
}
