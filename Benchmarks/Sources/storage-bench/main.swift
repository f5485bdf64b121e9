import BenchSupport
import FileStorageKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// storage-bench: DefaultsSuite against UserDefaults and DurableFile against Data.write(.atomic), in one
// process, each in a fresh temporary folder, plus a count of the system calls a get makes.
// See Benchmarks/README.md for how to read the output.

let options = optionsOrExit(Options.parse(Array(CommandLine.arguments.dropFirst())), usage: Options.usage)

let (root, stores) = benchFolder("storage-bench", under: options.folder) { try Stores(root: $0) }

print("storage-bench: median of \(options.runs) runs after \(options.warmups) warm-up(s); per run \(options.gets) gets, "
    + "\(options.sets) sets, \(options.writes) writes per size")
print("folder: \(root.path) (\(fileSystemName(root)))")

FileHandle.standardError.write(Data("measuring:\n".utf8))
let results = run(makeCases(stores, options: options), warmups: options.warmups, runs: options.runs)
print("\nResults (median time per operation; Foundation / ours above 1 means ours is faster):")
print(formatTable(results))

var failures = results.filter { r in
    if case .failure = r.foundation { return true }
    if case .failure = r.ours { return true }
    return false
}.count

// What the set rows wrote must be what a fresh reader sees.
let fresh = DefaultsSuite(suiteName: "bench", folder: stores.setSuite.url.deletingLastPathComponent())
let lastSet = stores.setSuite.integer(forKey: "counter")
if fresh.integer(forKey: "counter") != lastSet || lastSet == 0 {
    print("check FAILED: a fresh DefaultsSuite reads \(fresh.integer(forKey: "counter")), the writer \(lastSet)")
    failures += 1
}

print("\nFile modes after the writes (an app's 0600 file stays 0600 only with DurableFile):")
for prefix in ["ours", "foundation"] {
    let url = stores.writeFolder.appendingPathComponent("\(prefix)-1024.bin")
    var info = stat()
    let mode = stat(url.path, &info) == 0 ? String(info.st_mode & 0o777, radix: 8) : "missing"
    print("  \(prefix == "ours" ? "DurableFile.write" : "Data.write(.atomic)"): \(mode)")
}

failures += proveGetsStayInMemory(stores, options: options, scratch: root)

print("""

    Notes:
      - ours set = lock (flock on a sidecar), re-read the file, write a temporary file, fsync, rename, fsync
        the folder. UserDefaults.set + synchronize() on Linux truncates and rewrites the file in place
        (then fsyncs it) without a lock: a crash mid-write can leave a truncated file, and two processes
        lose each other's keys. It is not crash-safe or multi-process-safe even with synchronize().
      - Data.write(.atomic) writes a temporary file, fsyncs and renames it, but does not fsync the folder
        (the rename can be lost on power failure) and resets the file's mode.
      - UserDefaults(suiteName:) with an absolute path stores <path>.plist (a plain name goes to
        $XDG_CONFIG_HOME/<name>.plist, by default ~/.config); its files were:
    """)
for file in stores.defaultsFiles {
    print("      \(file.path) (\(FileManager.default.fileExists(atPath: file.path) ? "present" : "MISSING"))")
}
// Not a `defer`: `exit` would skip it.
do {
    try FileManager.default.removeItem(at: root)
    print("  - removed \(root.path) and everything in it, those files included.")
} catch {
    print("  - could not remove \(root.path): \(error)")
    failures += 1
}
exit(failures == 0 ? 0 : 1)
