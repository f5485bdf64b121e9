import Foundation

// What every fuzz target needs; a library of the Fuzz package.

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, copied into a `Data`.
///
/// A copy, not `Data(bytesNoCopy:)`: libFuzzer frees its buffer when the call returns, and a reader that
/// kept a slice past that point would be a use-after-free we want ASan to report in our code, not cause.
public func fuzzData(_ bytes: UnsafeRawPointer?, _ count: Int) -> Data {
    guard let bytes, count > 0 else { return Data() }
    return Data(bytes: bytes, count: count)
}

/// The input as text, decoded the way a `String` reader sees a file (invalid UTF-8 repaired).
public func fuzzText(_ bytes: UnsafeRawPointer?, _ count: Int) -> String {
    guard let bytes, count > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// Stops the process when an invariant of the code under test does not hold.
///
/// "Does not crash" is the weakest oracle; every target also checks what the documentation promises
/// (two paths agree, a value survives a round trip, only the documented error type is thrown). libFuzzer
/// records an `abort()` as a crash and saves the input, like any other finding.
public func fuzzRequire(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    FileHandle.standardError.write(Data("fuzz invariant failed (\(file):\(line)): \(message())\n".utf8))
    abort()
}
