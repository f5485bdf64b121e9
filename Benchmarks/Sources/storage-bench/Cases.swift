import FileStorageKit
import Foundation

/// One row of the results table: the same work done by Foundation and by FileStorageKit.
struct BenchCase {
    /// What the row measures, e.g. `get integer(forKey:)`.
    var name: String
    /// How many operations one measured batch performs.
    var operations: Int
    /// Report the times in nanoseconds (gets) rather than microseconds.
    var nanoseconds: Bool
    /// Foundation's batch.
    var foundation: () throws -> Void
    /// FileStorageKit's batch.
    var ours: () throws -> Void
}

/// The outcome of one row: a timing for each side, or the error that side threw.
struct CaseResult {
    var benchCase: BenchCase
    var foundation: Result<Timing, any Error>
    var ours: Result<Timing, any Error>

    /// Foundation's median time divided by ours, when both ran (above 1: ours is faster).
    var ratio: Double? {
        guard case .success(let f) = foundation, case .success(let o) = ours else { return nil }
        return f.median / o.median
    }
}

/// A value read back that is not the one written: the benchmark measured something broken.
struct WrongValue: Error, CustomStringConvertible {
    var description: String
}

/// A counter the set batches share, so every set stores a new value (an unchanged value is not written).
final class Counter {
    var value = 0
    func next() -> Int { value += 1; return value }
}

/// The property list the get case starts from, written before any suite watches its folder.
let startingSuite = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>counter</key>
    \t<integer>7</integer>
    \t<key>name</key>
    \t<string>storage-bench</string>
    </dict>
    </plist>

    """

/// The stores one run of the benchmark works on, each in its own subfolder of `root`.
struct Stores {
    /// Our suite for gets: its file is never written while it is measured.
    var getSuite: DefaultsSuite
    /// Foundation's suite for gets.
    var getDefaults: UserDefaults
    /// Our suite for sets.
    var setSuite: DefaultsSuite
    /// Foundation's suite for sets.
    var setDefaults: UserDefaults
    /// The files `UserDefaults` writes (a suite name that is an absolute path is stored at that path
    /// plus `.plist` on Linux; a plain name would go to `$XDG_CONFIG_HOME` or `~/.config`).
    var defaultsFiles: [URL]
    /// Where the whole-file writes go.
    var writeFolder: URL

    init(root: URL) throws {
        func folder(_ name: String) throws -> URL {
            let url = root.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        func defaults(in folder: URL) throws -> (UserDefaults, URL) {
            let suitePath = folder.appendingPathComponent("foundation-suite").path
            guard let defaults = UserDefaults(suiteName: suitePath) else {
                throw WrongValue(description: "UserDefaults(suiteName: \(suitePath)) returned nil")
            }
            return (defaults, URL(fileURLWithPath: suitePath + ".plist"))
        }
        let ourGet = try folder("get-ours"), ourSet = try folder("set-ours")
        // Written before the suite exists, so no change event for it can arrive during the measurement.
        try DurableFile.write(Data(startingSuite.utf8), to: ourGet.appendingPathComponent("bench.plist"))
        getSuite = DefaultsSuite(suiteName: "bench", folder: ourGet)
        setSuite = DefaultsSuite(suiteName: "bench", folder: ourSet)
        let (getDefaults, getFile) = try defaults(in: try folder("get-foundation"))
        let (setDefaults, setFile) = try defaults(in: try folder("set-foundation"))
        getDefaults.set(7, forKey: "counter")
        getDefaults.set("storage-bench", forKey: "name")
        guard getDefaults.synchronize() else { throw WrongValue(description: "UserDefaults.synchronize() failed") }
        self.getDefaults = getDefaults
        self.setDefaults = setDefaults
        defaultsFiles = [getFile, setFile]
        writeFolder = try folder("write")
    }
}

/// A loop of `count` gets that checks every value, so the optimizer cannot drop it.
func getLoop(_ count: Int, _ get: () -> Int) throws {
    var sum = 0
    for _ in 0..<count { sum &+= get() }
    guard sum == 7 &* count else { throw WrongValue(description: "gets summed to \(sum), expected \(7 &* count)") }
}

/// Every row: gets, durable sets, and whole-file writes of three sizes.
func makeCases(_ stores: Stores, options: Options) -> [BenchCase] {
    let counter = Counter()
    var cases = [
        BenchCase(name: "get integer(forKey:)", operations: options.gets, nanoseconds: true,
                  foundation: { try getLoop(options.gets) { stores.getDefaults.integer(forKey: "counter") } },
                  ours: { try getLoop(options.gets) { stores.getSuite.integer(forKey: "counter") } }),
        BenchCase(name: "set(_:forKey:), durable", operations: options.sets, nanoseconds: false,
                  foundation: {
                      for _ in 0..<options.sets {
                          stores.setDefaults.set(counter.next(), forKey: "counter")
                          guard stores.setDefaults.synchronize() else { throw WrongValue(description: "synchronize() failed") }
                      }
                  },
                  ours: { for _ in 0..<options.sets { try stores.setSuite.set(counter.next(), forKey: "counter") } }),
    ]
    for (label, size) in [("1 KB", 1024), ("64 KB", 64 * 1024), ("1 MB", 1024 * 1024)] {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let ourFile = stores.writeFolder.appendingPathComponent("ours-\(size).bin")
        let foundationFile = stores.writeFolder.appendingPathComponent("foundation-\(size).bin")
        cases.append(BenchCase(
            name: "write \(label) (DurableFile vs .atomic)", operations: options.writes, nanoseconds: false,
            foundation: { for _ in 0..<options.writes { try data.write(to: foundationFile, options: .atomic) } },
            ours: { for _ in 0..<options.writes { try DurableFile.write(data, to: ourFile) } }))
    }
    return cases
}

/// Runs each case, Foundation and ours taking turns, printing progress to standard error.
func run(_ cases: [BenchCase], warmups: Int, runs: Int) -> [CaseResult] {
    cases.map { benchCase in
        FileHandle.standardError.write(Data("  measuring \(benchCase.name)\n".utf8))
        let (foundation, ours) = measurePair(warmups: warmups, runs: runs, operations: benchCase.operations,
                                             benchCase.foundation, benchCase.ours)
        return CaseResult(benchCase: benchCase, foundation: foundation, ours: ours)
    }
}
