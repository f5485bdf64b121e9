// Foundation's `Process` (swift-corelibs-foundation) is never freed once it has run: the object, the
// CFRunLoopSource it watches its child with, and what it holds (its URL, its arguments) stay in a
// cycle, and LeakSanitizer reports them at exit as indirect leaks. Build and run:
//   swiftc -sanitize=address -g ci/sanitizers/ProcessUnderLSan.swift -o /tmp/lsan-process && /tmp/lsan-process
// Both processes below have ended and nothing of this program refers to them, yet about a dozen
// allocations are reported, every one reachable from an object made in `Process.init`. With
// `LSAN_OPTIONS=suppressions=ci/sanitizers/lsan.supp`, nothing is.
import Foundation

func once(wait: Bool) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wait ? "/bin/true" : "/bin/sleep")
    process.arguments = wait ? [] : ["30"]
    try process.run()
    if wait { process.waitUntilExit() } else { process.terminate(); while process.isRunning { usleep(1000) } }
}
try once(wait: true)
try once(wait: false)
sleep(1)
print("done")
