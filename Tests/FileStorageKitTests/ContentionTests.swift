import Foundation
import Testing
import FileStorageKit
import PlistCodec
import TestSupport

/// Issue 3, item 2: processes writing one file at the same time lose nothing.
///
/// Each test starts a batch of `storage-probe` processes at once and waits for all of them against
/// a deadline. The probes wait up to 60 s for the lock: 40 processes share 2 noisy cores. The suite
/// runs its tests one at a time so that no more than 40 probes run at once.
@Suite(.serialized) struct ContentionTests {
    /// Starts one storage-probe per argument list, released together (`ProcessFaults.runTogether`).
    /// The probes wait up to 60 s for the lock; a whole batch may take 120 s.
    func runBatch(_ argumentLists: [[String]]) async throws -> [ChildProcess] {
        try await ProcessFaults(program: "storage-probe", deadline: .seconds(120)).runTogether(argumentLists)
    }

    /// Every value the children's increments returned (`values 1 5 9 ...` lines), each child's rising.
    func returnedValues(_ children: [ChildProcess]) throws -> [Int] {
        try ProcessFaults.incrementValues(children)
    }

    @Test func defaultsSuiteIncrementsFromFourProcessesAllCount() async throws {
        let temp = try TemporaryFolder(prefix: "contention-defaults-increment")
        let folder = temp.url
        let children = try await runBatch(Array(repeating: ["defaults-increment", folder.path, "shared", "250"], count: 4))

        // Atomic increments hand out every number from 1 to 1000 exactly once.
        #expect(try returnedValues(children).sorted() == Array(1...1000))
        let suite = DefaultsSuite(suiteName: "shared", folder: folder)
        #expect(suite.integer(forKey: "counter") == 1000)
        let onDisk = try PlistValue(parsing: Data(contentsOf: folder.appendingPathComponent("shared.plist")))
        #expect(onDisk.dictionaryValue?["counter"]?.intValue == 1000)
        #expect(try temp.entries() == [".shared.plist.lock", "shared.plist"], "no temporary file is left behind")
    }

    @Test func defaultsSuiteKeysFromFortyProcessesAllStay() async throws {
        let temp = try TemporaryFolder(prefix: "contention-defaults-keys")
        let folder = temp.url
        let expected = Dictionary(uniqueKeysWithValues: (0..<40).map { (String(format: "key-%02d", $0), 1000 + $0) })
        _ = try await runBatch(expected.map { ["defaults-set", folder.path, "shared", $0.key, String($0.value)] })

        let suite = DefaultsSuite(suiteName: "shared", folder: folder)
        let stored = suite.dictionaryRepresentation()
        #expect(stored.count == 40, "keys kept: \(stored.keys.sorted())")
        #expect(stored == expected.mapValues { PlistValue.int($0) })
        #expect(try temp.entries() == [".shared.plist.lock", "shared.plist"], "no temporary file is left behind")
    }

    @Test func plistFileStorageUpdatesFromFourProcessesAllCount() async throws {
        let temp = try TemporaryFolder(prefix: "contention-storage-increment")
        let folder = temp.url
        let file = folder.appendingPathComponent("counter.plist")
        let children = try await runBatch(Array(repeating: ["storage-increment", file.path, "250"], count: 4))

        #expect(try returnedValues(children).sorted() == Array(1...1000))
        let counter: ProbeCounter = try PlistFileStorage().data(for: file)
        #expect(counter.count == 1000)
        #expect(try temp.entries() == [".counter.plist.lock", "counter.plist"], "no temporary file is left behind")
    }

    @Test func plistFileStorageKeysFromFortyProcessesAllStay() async throws {
        let temp = try TemporaryFolder(prefix: "contention-storage-keys")
        let folder = temp.url
        let file = folder.appendingPathComponent("keys.plist")
        let expected = Dictionary(uniqueKeysWithValues: (0..<40).map { (String(format: "key-%02d", $0), 1000 + $0) })
        _ = try await runBatch(expected.map { ["storage-set-key", file.path, $0.key, String($0.value)] })

        let stored: [String: Int] = try PlistFileStorage().data(for: file)
        #expect(stored.count == 40, "keys kept: \(stored.keys.sorted())")
        #expect(stored == expected)
        #expect(try temp.entries() == [".keys.plist.lock", "keys.plist"], "no temporary file is left behind")
    }

    /// Writers through an in-folder link and writers to its target share one lock (the target's), so
    /// no increment is lost. (A lock named after the link's path lost about half of them.)
    @Test func plistFileStorageUpdatesThroughALinkAndItsTargetAllCount() async throws {
        let temp = try TemporaryFolder(prefix: "contention-storage-link")
        let real = temp.file("counter.plist")
        let link = temp.file("alias.plist")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "counter.plist")
        let children = try await runBatch([real, link, real, link].map { ["storage-increment", $0.path, "250"] })

        let counter: ProbeCounter = try PlistFileStorage().data(for: real)
        print("ContentionTests: through a link and its target: count \(counter.count) of 1000")
        #expect(counter.count == 1000)
        let values = try returnedValues(children)
        #expect(Set(values).count == 1000, "distinct values handed out")
    
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "counter.plist")
    }

    /// The value `storage-probe storage-increment` counts in.
    struct ProbeCounter: Codable {
        var count: Int
    }
}
