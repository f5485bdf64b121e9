// Why most of ci/sanitize's LeakSanitizer reports at exit are not leaks: a Swift enum with class
// payloads (Data's representation, PlistValue) may keep its case in the spare bits of the object
// pointer, so the word LSan scans is not an address, and an object held by a live global or object
// is reported as a "Direct leak". Build and run:
//   swiftc -sanitize=address -g ci/sanitizers/LeaksUnderLSan.swift -o /tmp/lsan-enum && /tmp/lsan-enum
// Part 1: everything here is held by a live global at exit, yet LSan reports four 65-byte Data
// storages "directly" leaked and their buffers indirectly. Part 2 (below): a weak side table.
import Foundation
final class Holder { var cache: Data? = nil; var list: [Data] = [] }
func make(_ n: Int) -> Data {
    let p = malloc(n)!.assumingMemoryBound(to: UInt8.self)
    for i in 0..<n { p[i] = UInt8(i & 0xff) }
    return Data(bytesNoCopy: p, count: n, deallocator: .free)
}
let holder = Holder()
holder.cache = make(65)
holder.list = [make(100), make(5000)]
var optionalGlobal: Data? = make(70)
print("held", holder.cache!.count, holder.list.count, optionalGlobal!.count)

// The same for weak references: the first `weak` reference to an object allocates the object's side
// table (swift_weakInit / swift_weakAssign), and the object's header keeps only an encoded form of
// its address. An object alive at exit that was ever weakly referenced, and whose weak references
// are gone, has its side table reported as a 64-byte "Direct leak" allocated under swift_weakAssign.
final class Target { var value = 1 }
final class Watcher { weak var target: Target? }
let liveTarget = Target()
do { let watcher = Watcher(); watcher.target = liveTarget; print("watched", watcher.target!.value) }
exit(0)
