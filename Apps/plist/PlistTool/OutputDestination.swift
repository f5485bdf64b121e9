import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a result goes: standard output (`-`) or a file, replaced atomically.
///
/// A file is written to a temporary file beside it and renamed over it only once complete, so a
/// failed conversion (a value the format cannot hold, a full disk) leaves the original untouched.
struct OutputDestination {
    let path: String
    let io: ToolIO

    init(_ path: String, io: ToolIO) {
        self.path = path
        self.io = io
    }

    /// Writes `data` as the whole result.
    func write(_ data: Data) throws {
        try write { emit in try emit(data) }
    }

    /// Writes the result `body` hands, in pieces, to the function it is given.
    func write(_ body: ((Data) throws -> Void) throws -> Void) throws {
        if path == "-" {
            try body { io.writeOutput($0) }
            return
        }
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).plist-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw FileFailure("cannot write \(path): the folder is missing or not writable")
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try body { try handle.write(contentsOf: $0) }
            try handle.synchronize()
            guard rename(temporary.path, target.path) == 0 else {
                throw FileFailure("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
