import FileStorageKit
import Foundation
import ModelPersistence

/// What a row's ratio must reach: `peer / ours` at least `minimum`.
struct Goal {
    /// The lowest acceptable `peer / ours`.
    var minimum: Double
    /// How the goal is said in the issue, e.g. `within 2x`.
    var label: String
}

/// One row of the results table: the same work done by a peer and by ModelPersistence.
struct BenchCase {
    /// What the row measures, e.g. `get count`.
    var name: String
    /// What ours is compared with, e.g. `@Observable class`.
    var peerName: String
    /// Operations in one measured batch of the peer, and of ours.
    var peerOperations: Int, ourOperations: Int
    /// Report the times in nanoseconds rather than microseconds.
    var nanoseconds: Bool
    /// The goal for this row, if it has one.
    var goal: Goal?
    /// The peer's batch.
    var peer: () throws -> Void
    /// Our batch.
    var ours: () throws -> Void
    /// `peer` and `ours` are one operation each, and the sides take turns operation by operation
    /// (`measureInterleaved`: runs × operations pairs); the times are medians of single operations.
    var interleaved = false
}

/// The outcome of one row: a timing for each side, or the error that side threw.
struct CaseResult {
    var benchCase: BenchCase
    var peer: Result<Timing, any Error>
    var ours: Result<Timing, any Error>

    /// The peer's median time divided by ours, when both ran (above 1: ours is faster).
    var ratio: Double? {
        guard case .success(let p) = peer, case .success(let o) = ours else { return nil }
        return p.median / o.median
    }

    /// Whether the row has a goal and reached it (`nil` without a goal or a ratio).
    var goalMet: Bool? {
        guard let goal = benchCase.goal, let ratio else { return nil }
        return ratio >= goal.minimum
    }
}

/// A value read back that is not the one written: the benchmark measured something broken.
struct WrongValue: Error, CustomStringConvertible {
    var description: String
}

/// Hands out 8, 9, 10, ...: every set stores a new value (an unchanged value is not written).
final class Counter {
    var value = 7
    func next() -> Int { value += 1; return value }
}

/// The objects and files the benchmark works on, each model in its own subfolder of `root`.
struct Subjects {
    /// Read by the get rows; nothing writes its file while it is measured.
    var getModel: BenchProfile
    /// The `@Observable` peer of `getModel`.
    var observed: ObservedProfile
    /// Written by the set rows.
    var setModel: BenchProfile
    /// Written by the batch row and the write count.
    var batchModel: BenchProfile
    /// `getModel`'s file, which the decode-per-read peer reads.
    var getFile: URL
    /// Where the `.atomic` peer writes, and what it writes: `ProfileShape()` as `PropertyListEncoder` encodes it.
    var atomicFile: URL, encoded: Data
    /// The file DocumentData's set reads, decodes, encodes and rewrites.
    var documentDataFile: URL
    /// Where the `DurableFile.write` peer writes, and what: `setModel`'s file as a set leaves it.
    var durableFile: URL, setBytes: Data

    init(root: URL) throws {
        func folder(_ name: String) throws -> URL {
            let url = root.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        func model(in folder: URL) -> BenchProfile {
            PersistenceLocation.$folder.withValue(folder) {
                let model = BenchProfile()
                _ = model.count   // first use: writes the file
                return model
            }
        }
        let getFolder = try folder("get")
        getModel = model(in: getFolder)
        setModel = model(in: try folder("set"))
        batchModel = model(in: try folder("batch"))
        observed = ObservedProfile()
        getFile = getFolder.appendingPathComponent("BenchProfile.storage.plist")
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        encoded = try encoder.encode(ProfileShape())
        atomicFile = try folder("atomic").appendingPathComponent("ProfileShape.plist")
        documentDataFile = try folder("documentdata").appendingPathComponent("SomeModel.storage.plist")
        try encoded.write(to: documentDataFile, options: .atomic)
        durableFile = try folder("durable").appendingPathComponent("BenchProfile.storage.plist")
        // A count of four digits, as the set rows write (the counter passes 1,000 in their warm-up):
        // the peer writes bytes of the size the sets write.
        setModel.count = 1_000
        setBytes = try Data(contentsOf: root.appendingPathComponent("set/BenchProfile.storage.plist"))
        if let error = getModel.persistenceError ?? setModel.persistenceError ?? batchModel.persistenceError {
            throw error
        }
    }
}

/// A loop of `count` gets through `read`, on an object the optimizer cannot identify; checks the sum,
/// so the loop cannot be dropped.
func getLoop(_ count: Int, _ object: AnyObject, _ read: (AnyObject) -> Int) throws {
    let object = opaque(object)
    var sum = 0
    for _ in 0..<count { sum &+= read(object) }
    guard sum == 7 &* count else { throw WrongValue(description: "gets summed to \(sum), expected \(7 &* count)") }
}

/// Every row: gets against `@Observable` and against decode-per-read, durable sets against
/// `.atomic` writes, and a batch of sets against one set.
func makeCases(_ s: Subjects, options: Options, counter: Counter) -> [BenchCase] {
    let gets = options.gets, sets = options.sets
    return [
        BenchCase(name: "get count", peerName: "@Observable class", peerOperations: gets, ourOperations: gets,
                  nanoseconds: true, goal: Goal(minimum: 1, label: "at most 1x"),
                  peer: { try getLoop(gets, s.observed, observedCount) },
                  ours: { try getLoop(gets, s.getModel, persistedCount) }),
        BenchCase(name: "get count", peerName: "decode the file per read", peerOperations: options.decodes,
                  ourOperations: gets, nanoseconds: true, goal: Goal(minimum: 1000, label: "over 1000x"),
                  peer: {
                      var sum = 0
                      for _ in 0..<options.decodes { sum &+= try decodePerReadCount(s.getFile) }
                      guard sum == 7 &* options.decodes else { throw WrongValue(description: "decoded sum \(sum)") }
                  },
                  ours: { try getLoop(gets, s.getModel, persistedCount) }),
        BenchCase(name: "set count, durable", peerName: "DurableFile.write, same bytes", peerOperations: sets,
                  ourOperations: sets, nanoseconds: false, goal: Goal(minimum: 1 / 1.3, label: "at most 1.3x"),
                  peer: { try DurableFile.write(s.setBytes, to: s.durableFile) },
                  ours: { s.setModel.count = counter.next() }, interleaved: true),
        BenchCase(name: "set count, durable", peerName: "Data.write(.atomic), encoded", peerOperations: sets,
                  ourOperations: sets, nanoseconds: false, goal: nil,
                  peer: { for _ in 0..<sets { try s.encoded.write(to: s.atomicFile, options: .atomic) } },
                  ours: { for _ in 0..<sets { s.setModel.count = counter.next() } }),
        BenchCase(name: "set count, durable", peerName: "DocumentData set", peerOperations: sets,
                  ourOperations: sets, nanoseconds: false, goal: nil,
                  peer: { for _ in 0..<sets { try documentDataSet(s.documentDataFile, count: counter.next()) } },
                  ours: { for _ in 0..<sets { s.setModel.count = counter.next() } }),
        BenchCase(name: "\(options.batch) sets in withBatch", peerName: "1 set", peerOperations: 1, ourOperations: 1,
                  nanoseconds: false, goal: nil,
                  peer: { s.batchModel.count = counter.next() },
                  ours: {
                      s.batchModel.withBatch { model in
                          for _ in 0..<options.batch { model.count = counter.next() }
                      }
                  }),
    ]
}

/// Runs each case, the peer and ours taking turns, printing progress to standard error.
func run(_ cases: [BenchCase], warmups: Int, runs: Int) -> [CaseResult] {
    cases.map { benchCase in
        FileHandle.standardError.write(Data("  measuring \(benchCase.name) vs \(benchCase.peerName)\n".utf8))
        if benchCase.interleaved {
            let (peer, ours) = measureInterleaved(warmups: warmups * benchCase.ourOperations,
                                                  pairs: runs * benchCase.ourOperations, benchCase.peer, benchCase.ours)
            return CaseResult(benchCase: benchCase, peer: peer, ours: ours)
        }
        let (peer, ours) = measurePair(warmups: warmups, runs: runs, peerOperations: benchCase.peerOperations,
                                       ourOperations: benchCase.ourOperations, benchCase.peer, benchCase.ours)
        return CaseResult(benchCase: benchCase, peer: peer, ours: ours)
    }
}
