import Foundation

/// A growable byte buffer for the writers: one allocation that doubles, handed to `Data` without a copy.
final class ByteWriter {
    // Accessed on every byte: the writer is single-threaded, so skip dynamic exclusivity checks.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        guard let p = malloc(self.capacity) else { Self.outOfMemory() }
        base = p.assumingMemoryBound(to: UInt8.self)
    }

    /// Set once `data()` has given the buffer to a `Data`, which frees it.
    private var handedOver = false

    deinit { if !handedOver { free(base) } }

    private static func outOfMemory() -> Never {
        // Allocation failure is not an input error: nothing sensible can continue.
        fatalError("ByteWriter: out of memory")
    }

    @inline(__always)
    func ensure(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        // realloc can move large buffers by remapping pages instead of copying them.
        guard let p = realloc(base, newCapacity) else { Self.outOfMemory() }
        base = p.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
        if capacity >= Self.hugePageThreshold { adviseHugePages() }
    }

    /// Buffers from this size on ask for huge pages.
    private static let hugePageThreshold = 1 << 22

    /// Asks the kernel to back the buffer with 2 MB pages where it can. A large output touches
    /// every page of its buffer once: with 4 KB pages the page faults took about a quarter of the
    /// time `serialized(as: .xml)` spent on a 15 MB file; with huge pages they are a few. Only a hint: where transparent huge pages
    /// are off, nothing changes.
    private func adviseHugePages() {
        #if os(Linux)
        let huge = 1 << 21
        let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: base) + capacity) & ~(huge - 1)
        if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
        #endif
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        ensure(1)
        base[count] = byte
        count += 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let src = bytes.baseAddress, bytes.count > 0 else { return }
        ensure(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: src, byteCount: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    func append(_ string: StaticString) {
        let n = string.utf8CodeUnitCount
        ensure(n)
        UnsafeMutableRawPointer(base + count).copyMemory(from: string.utf8Start, byteCount: n)
        count += n
    }

    /// Appends `value` in decimal, without going through `String`.
    func appendDecimal(_ value: Int64) {
        ensure(20)
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let written = withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var i = 24
            repeat {
                i -= 1
                buffer[i] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { i -= 1; buffer[i] = UInt8(ascii: "-") }
            let n = 24 - i
            (base + count).update(from: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: n)
            return n
        }
        count += written
    }

    func append(contentsOf data: Data) {
        data.withUnsafeBytes { append($0) }
    }

    /// Appends the UTF-8 bytes of `string`.
    func appendUTF8(_ string: String) {
        var s = string
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends the low `width` bytes of `value`, most significant first.
    @inline(__always)
    func appendBigEndian<T: FixedWidthInteger>(_ value: T, width: Int) {
        ensure(width)
        var v = value
        var i = width - 1
        while i >= 0 {
            base[count + i] = UInt8(truncatingIfNeeded: v)
            v >>= 8
            i -= 1
        }
        count += width
    }

    /// Appends `byte` `n` times.
    @inline(__always)
    func append(repeating byte: UInt8, count n: Int) {
        guard n > 0 else { return }
        ensure(n)
        if n <= 4 {
            // Indentation is usually a tab or two: cheaper than a call to memset.
            for i in 0..<n { base[count + i] = byte }
        } else {
            (base + count).update(repeating: byte, count: n)
        }
        count += n
    }

    /// Runs `body` with room for `n` more bytes; `body` returns how many it wrote.
    @inline(__always)
    func withUnsafeSpace(_ n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        ensure(n)
        count += body(base + count)
    }

    /// The bytes written so far, handed over without a copy; the writer must not be used after.
    func data() -> Data {
        guard !handedOver else { return Data(bytes: base, count: count) }
        handedOver = true
        // Give back what the doublings left unused, so the `Data` does not keep it (shrinking in
        // place is cheap).
        if capacity - count > 4096, let shrunk = realloc(base, max(count, 1)) {
            base = shrunk.assumingMemoryBound(to: UInt8.self)
            capacity = max(count, 1)
        }
        return Data(bytesNoCopy: base, count: count, deallocator: .free)
    }
}
