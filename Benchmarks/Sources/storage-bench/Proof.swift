import BenchSupport
import FileStorageKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Shows that a get on an unchanged file makes no system call: counts the calls of a loop of gets by
/// `/proc/self/io` (read calls) and, when strace is installed, by `strace -c` (opens, reads, stats).
///
/// - Returns: 1 if our gets touched the disk (more than one call per thousand gets), else 0.
func proveGetsStayInMemory(_ stores: Stores, options: Options, scratch: URL) -> Int {
    let count = min(options.gets, 100_000)
    let ours = { try getLoop(count) { stores.getSuite.integer(forKey: "counter") } }
    let foundation = { try getLoop(count) { stores.getDefaults.integer(forKey: "counter") } }
    print("\nDo gets on an unchanged file touch the disk? (\(count) gets per side, after the measured runs)")
    var oursCalls: Int?

    do {
        if let o = try extraReadSyscalls(during: ours), let f = try extraReadSyscalls(during: foundation) {
            print("  read syscalls (syscr in /proc/self/io, all threads): ours \(o) = \(perGet(o, count)) per get; "
                + "Foundation \(f) = \(perGet(f, count)) per get")
            oursCalls = o
        } else {
            print("  /proc/self/io is not readable here")
        }
    } catch {
        print("  the get loop failed: \(error)")
        return 1
    }

    if let strace = findStrace() {
        do {
            var window = 0
            func counts(_ body: () throws -> Void) throws -> SyscallCounts {
                window += 1
                return try straceCounts(strace: strace, output: scratch.appendingPathComponent("strace-\(window).txt"), during: body)
            }
            let o = try counts(ours)
            let f = try counts(foundation)
            // A window that does read the file, so a zero above means no calls, not a blind counter.
            let control = try counts { _ = try DurableFile.read(stores.getSuite.url) }
            print("  strace -f -e \(tracedSyscalls), every thread, between two marker calls:")
            print("    control, one DurableFile.read of the suite's file: \(control.total) calls (\(control.summary))")
            print("    ours:       \(o.total) calls = \(perGet(o.total, count)) per get (\(o.summary))")
            print("    Foundation: \(f.total) calls = \(perGet(f.total, count)) per get (\(f.summary))")
            oursCalls = max(oursCalls ?? 0, o.total)
        } catch {
            print("  strace could not count: \(error)")
        }
    } else {
        print("  strace is not installed (apt-get install strace): counted read calls only")
    }

    guard let calls = oursCalls else { return 0 }
    let touched = calls * 1000 > count
    print("  verdict: ours \(touched ? "TOUCHES the disk" : "stays in memory") on an unchanged file")
    return touched ? 1 : 0
}

private func perGet(_ calls: Int, _ gets: Int) -> String {
    String(format: "%.5f", Double(calls) / Double(gets))
}

