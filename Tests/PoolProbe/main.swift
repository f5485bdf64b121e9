// pool-probe: shows that another process's change reaches the three file-backed stores while every
// thread of Swift's cooperative pool is blocked. Driven by FileStorageKitTests' PoolBlockedTests.
//
//     pool-probe watch FOLDER   opens a DefaultsSuite, a @PersistedModel and a DataPersistence in
//                               FOLDER, listens (a synchronous callback, Observation's onChange, the
//                               collection's observer), blocks every pool thread, prints "ready",
//                               waits (main thread, 90 s deadline) for the three deliveries, then
//                               prints what arrived, fresh reads, and whether a pool task ran
//     pool-probe write FOLDER   changes all three from another process; prints "written"
import CollectionStore
import Dispatch
import FileStorageKit
import Foundation
import ModelPersistence
import Observation
import Synchronization

@PersistedModel
final class PoolModel {
    var name: String = "initial"
    init() {}
}

struct PoolItem: Codable, Equatable, Sendable {
    var label: String
}

/// Shared flags (a class: `Atomic` and `Mutex` cannot be captured by escaping closures).
final class Flags: Sendable {
    let started = Atomic<Int>(0)
    let modelChanged = Atomic<Bool>(false)
    let canary = Atomic<Bool>(false)
    let suiteKey = Mutex<String?>(nil)
    let collectionChange = Mutex<String?>(nil)
}

func out(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func stores(_ folder: URL) -> (DefaultsSuite, PoolModel, DataPersistence<PoolItem>) {
    let suite = DefaultsSuite(suiteName: "pool", folder: folder)
    let model = PersistenceLocation.$folder.withValue(folder) { () -> PoolModel in
        let model = PoolModel()
        _ = model.name   // first use inside the binding
        return model
    }
    let items = DataPersistence<PoolItem>(filename: "items.plist", directory: .folder(folder))
    return (suite, model, items)
}

/// Occupies every thread of the cooperative pool until `release` is signalled; returns how many.
func blockThePool(release: DispatchSemaphore, flags: Flags, deadline: ContinuousClock.Instant) -> Int {
    let started = flags
    let width = ProcessInfo.processInfo.activeProcessorCount
    for _ in 0..<(width * 4) {
        Task.detached {
            started.started.add(1, ordering: .relaxed)
            release.wait()
            release.signal()
        }
    }
    // The pool runs at most `width` of them; wait until it does, and a little longer.
    while started.started.load(ordering: .relaxed) < width && ContinuousClock.now < deadline { usleep(1000) }
    usleep(100_000)
    return started.started.load(ordering: .relaxed)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: pool-probe watch|write FOLDER\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)

switch arguments[1] {
case "write":
    let (suite, model, items) = stores(folder)
    try suite.set("changed", forKey: "key")
    PersistenceLocation.$folder.withValue(folder) { model.name = "changed" }
    try model.flush()
    try items.createItem(PoolItem(label: "changed"))
    out("written")

case "watch":
    let (suite, model, items) = stores(folder)
    _ = try items.loadItems()
    let flags = Flags()
    let suiteSubscription = suite.observe { key in flags.suiteKey.withLock { $0 = $0 ?? key } }
    withObservationTracking({ _ = model.name }, onChange: { flags.modelChanged.store(true, ordering: .relaxed) })
    let itemsSubscription = items.observe { change in
        if case .externalChange(let all) = change { flags.collectionChange.withLock { $0 = $0 ?? all.map(\.label).joined(separator: ",") } }
    }

    let release = DispatchSemaphore(value: 0)
    let blocked = blockThePool(release: release, flags: flags, deadline: .now + .seconds(360))
    Task.detached { flags.canary.store(true, ordering: .relaxed) }
    out("ready cores=\(ProcessInfo.processInfo.activeProcessorCount) blocked=\(blocked)")

    // Long: the test process writes only once its own (loaded) tasks run; a dead parent ends the wait.
    let deadline = ContinuousClock.now + .seconds(300)
    let parent = getppid()
    func arrived() -> Bool {
        flags.suiteKey.withLock { $0 != nil } && flags.modelChanged.load(ordering: .relaxed) && flags.collectionChange.withLock { $0 != nil }
    }
    while !arrived() && ContinuousClock.now < deadline && getppid() == parent { usleep(1000) }
    let ranMeanwhile = flags.canary.load(ordering: .relaxed)
    out("suite-callback \(flags.suiteKey.withLock { $0 } ?? "none")")
    out("model-onchange \(flags.modelChanged.load(ordering: .relaxed))")
    out("collection-callback \(flags.collectionChange.withLock { $0 } ?? "none")")
    out("fresh suite=\(suite.string(forKey: "key") ?? "none") model=\(model.name) items=\(try items.loadItems().map(\.label).joined(separator: ","))")
    out("canary-ran \(ranMeanwhile)")
    withExtendedLifetime((suiteSubscription, itemsSubscription)) {}
    release.signal()
    exit(0)

default:
    FileHandle.standardError.write(Data("unknown command \(arguments[1])\n".utf8))
    exit(64)
}
