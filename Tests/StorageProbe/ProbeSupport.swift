import FileStorageKit
import Foundation
import PlistCodec
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension ProbeExit {
    /// The exit code for a `FileStorageError` (`ProbeExit` lives in TestSupport, shared with the tests).
    init(_ error: FileStorageError) {
        switch error {
        case .notFound: self = .notFound
        case .corrupt: self = .corrupt
        case .decodingFailed: self = .decodingFailed
        case .encodingFailed: self = .encodingFailed
        case .permissionDenied: self = .permissionDenied
        case .diskFull: self = .diskFull
        case .lockTimeout: self = .lockTimeout
        case .symlinkOutsideFolder: self = .symlinkOutsideFolder
        case .io, .nestedUpdate: self = .io
        }
    }
}

extension FileStorageError {
    /// The case's name, as the tests expect it after `error: `.
    var caseName: String { "\(ProbeExit(self))" }
}

/// The probe's settings: long lock waits, since 40 probes share 2 noisy cores.
enum Probe {
    static let lockTimeout: Duration = .seconds(60)
    /// The payload size of each `write-loop` version: large enough that a kill often lands mid-write.
    static let loopPayloadSize = ProbeSnapshot.loopPayloadSize
}

/// The value `storage-increment` counts in.
struct Counter: Codable {
    var count: Int
}

/// One self-checking version of a file: its payload is a function of its version number, so a reader
/// can tell a complete version from a mix of two (`ProbeSnapshot` in TestSupport, shared with the tests).
struct Snapshot: Codable {
    var version: Int
    var payload: Data

    init(version: Int, payloadSize: Int) {
        self.version = version
        payload = Snapshot.payload(version: version, size: payloadSize)
    }

    static func payload(version: Int, size: Int) -> Data {
        ProbeSnapshot.payload(version: version, size: size)
    }
}

/// Prints the usage problem on stderr and exits with `ProbeExit.usage`.
func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storage-probe: \(message)\n".utf8))
    exit(ProbeExit.usage.rawValue)
}

/// Writes `value` to `url` through one of the toolkit's write paths.
func write(_ value: Snapshot, to url: URL, api: String) throws {
    switch api {
    case "storage":
        try PlistFileStorage(lockTimeout: Probe.lockTimeout).write(value, to: url)
    case "durable":
        var encoder = PlistEncoder()
        encoder.outputFormat = .xml
        try DurableFile.write(try encoder.encode(value), to: url)
    case "defaults":
        let suiteName = url.deletingPathExtension().lastPathComponent
        let suite = DefaultsSuite(suiteName: suiteName, folder: url.deletingLastPathComponent(), lockTimeout: Probe.lockTimeout)
        try suite.set(value.payload, forKey: "payload")
    default:
        usage("unknown API \(api) (storage, durable or defaults)")
    }
}

/// A document of raw bytes at `url`, for the probe's `document` API.
func rawDocument(_ url: URL) -> PlistDocument<Data> {
    PlistDocument(url: url, lockTimeout: Probe.lockTimeout, coding: .init(empty: { Data() }, decode: { $0 }, encode: { new, _ in new }))
}

/// Deletes `url` through `api`: `storage` (`PlistFileStorage.deleteFile`), `async` (its `async`
/// view) or `document` (`PlistDocument.remove`).
func delete(_ url: URL, api: String) async throws {
    switch api {
    case "storage": try PlistFileStorage(lockTimeout: Probe.lockTimeout).deleteFile(at: url)
    case "async": try await PlistFileStorage(lockTimeout: Probe.lockTimeout).async.deleteFile(at: url)
    case "document": try rawDocument(url).remove()
    default: usage("unknown API \(api) (storage, async or document)")
    }
}

/// Reads `url` through `api` and returns how many bytes (or values) it found: `storage`
/// (`PlistFileStorage.data`), `document` (`PlistDocument.read`) or `defaults` (`DefaultsSuite`).
func read(_ url: URL, api: String) throws -> Int {
    switch api {
    case "storage":
        let snapshot: Snapshot = try PlistFileStorage(lockTimeout: Probe.lockTimeout).data(for: url)
        return snapshot.payload.count
    case "document":
        return try rawDocument(url).read().count
    case "defaults":
        let suite = DefaultsSuite(suiteName: url.deletingPathExtension().lastPathComponent,
                                  folder: url.deletingLastPathComponent(), lockTimeout: Probe.lockTimeout)
        try suite.reload()
        guard case .data(let payload)? = suite.object(forKey: "payload") else { throw FileStorageError.notFound(url) }
        return payload.count
    default:
        usage("unknown API \(api) (storage, document or defaults)")
    }
}

/// Writes versions forever in `format`, each continuing from the version on disk; prints `ready <n>`
/// once version `n`, the first this process wrote, is in place.
func writeLoop(_ url: URL, format: PlistFormat) throws -> Never {
    let storage = PlistFileStorage(format: format, lockTimeout: Probe.lockTimeout)
    var next = 1
    do {
        let current: Snapshot = try storage.data(for: url)
        next = current.version + 1
    } catch FileStorageError.notFound {
        next = 1
    }
    try storage.write(Snapshot(version: next, payloadSize: Probe.loopPayloadSize), to: url)
    print("ready \(next)")
    fflush(nil)
    while true {
        next += 1
        try storage.write(Snapshot(version: next, payloadSize: Probe.loopPayloadSize), to: url)
    }
}
