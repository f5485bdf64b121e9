import BenchSupport
import Foundation

/// A flashcard, the shape the flashcards app stores.
struct BenchCard: Codable, Equatable, Sendable {
    var id: UUID
    var deck: String
    var front: String
    var back: String
    var created: Date
    var reviews: Int
    var lastCorrect: Bool?

    init(number: Int) {
        id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
        deck = "deck \(number % 20)"
        front = "front of card \(number)"
        back = "the answer to card number \(number)"
        created = Date(timeIntervalSince1970: 1_763_800_000 + Double(number))
        reviews = number % 7
        lastCorrect = number % 3 == 0 ? nil : number % 3 == 1
    }
}

/// The original design's store, reproduced: every create loads and decodes the whole file, appends,
/// encodes the whole array and writes it with `Data.write(.atomic)`; no lock, no fsync.
final class OriginalPersistence<T: Codable & Equatable> {
    let url: URL
    private var items: [T] = []

    init(url: URL) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    }

    func loadItems() throws -> [T] {
        if FileManager.default.fileExists(atPath: url.path), let data = FileManager.default.contents(atPath: url.path) {
            items = try PropertyListDecoder().decode([T].self, from: data)
        }
        return items
    }

    func createItem(_ item: T) throws {
        _ = try? loadItems()
        items.append(item)
        try PropertyListEncoder().encode(items).write(to: url, options: .atomic)
    }
}

/// The command line.
struct Options {
    static let sizes = [1_000, 10_000, 100_000]
    /// Creates per measured round.
    static let round = 10
    var transaction = 10_000
    var loop = 1_000
    var creates = 100
    var largeCreates = 100
    var folder: URL?

    static let usage = """
        usage: collection-bench [--transaction N] [--loop N] [--creates N] [--large-creates N] [--folder PATH]
          --transaction N    items appended in one transaction, against as many original createItem calls,
                             estimated from sampled calls (default 10000)
          --loop N           the same comparison with the original's calls all run and measured, which
                             grows with N² (default 1000; the estimate is printed beside it as a check)
          --creates N        creates timed per side at 1k and 10k items (default 100, in rounds of 10)
          --large-creates N  creates timed per side at 100k items (default 100)
          --folder PATH      where the temporary folder goes (default: the system's temporary folder)
        """

    static func parse(_ arguments: [String]) -> Result<Options, OptionsError> {
        var o = Options()
        let error = parseOptions(arguments, usage: usage, numbers: [
            "--transaction": (1, { o.transaction = $0 }),
            "--loop": (1, { o.loop = $0 }),
            "--creates": (Options.round, { o.creates = $0 }),
            "--large-creates": (Options.round, { o.largeCreates = $0 }),
        ], folder: { o.folder = $0 })
        return error.map { .failure($0) } ?? .success(o)
    }
}

/// What `count` createItem calls of the original design cost, without running all of them: each
/// call decodes and encodes the whole file, so its cost grows with the items already there. This
/// times a few calls at five sizes from 0 to `count` and sums the cost curve with the trapezoid rule.
func estimatedLoop(count: Int, root: URL, samples: Int = 5) throws -> (total: Double, points: String) {
    let sizes = (0...4).map { count * $0 / 4 }
    var costs: [Double] = []
    for size in sizes {
        let original = try OriginalPersistence<BenchCard>(url: root.appendingPathComponent("at-\(size)/cards.plist"))
        try PropertyListEncoder().encode((0..<size).map(BenchCard.init(number:))).write(to: original.url)
        var times: [Double] = []
        for n in 0..<samples {
            times.append(seconds(try ContinuousClock().measure { try original.createItem(BenchCard(number: size + n)) }))
        }
        costs.append(median(times))
    }
    var total = 0.0
    for i in 1..<sizes.count {
        total += Double(sizes[i] - sizes[i - 1]) * (costs[i] + costs[i - 1]) / 2
    }
    return (total, "median of \(samples) creates at " + sizes.map(String.init).joined(separator: ", ") + " items")
}
