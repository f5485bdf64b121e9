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

    deinit { free(base) }

    private static func outOfMemory() -> Never {
        // Allocation failure is not an input error: nothing sensible can continue.
        preconditionFailure("ByteWriter: out of memory")
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

    func append(_ string: StaticString) {
        string.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
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
    func append(repeating byte: UInt8, count n: Int) {
        guard n > 0 else { return }
        ensure(n)
        (base + count).update(repeating: byte, count: n)
        count += n
    }

    /// The bytes written so far.
    func data() -> Data { Data(bytes: base, count: count) }
}
