import FileStorageKit
import Foundation
import PlistCodec

/// How each store's values are read back from a backing folder after a cut (no mount): the keys
/// `storage-probe power-writer` writes, `k0` to `k3`, with the values found (a missing key was lost).
enum StoreReaders {
    static let keys = (0..<4).map { "k\($0)" }

    /// `durable` and the broken writers: one file per key holding the value in decimal. A file that is
    /// there but holds no number (empty: its data never reached the disk) counts as lost.
    static func perKeyFiles(_ folder: URL) throws -> [String: Int] {
        var values: [String: Int] = [:]
        for key in keys {
            guard let data = try DurableFile.readIfPresent(folder.appendingPathComponent(key)) else { continue }
            values[key] = Int(String(decoding: data, as: UTF8.self))
        }
        return values
    }

    /// `storage`: one `[String: Int]` in `values.plist` through `PlistFileStorage`.
    static func plistFile(_ folder: URL) throws -> [String: Int] {
        do {
            return try PlistFileStorage().data(for: folder.appendingPathComponent("values.plist"))
        } catch FileStorageError.notFound {
            return [:]
        }
    }

    /// `defaults`: the suite `power` in `Preferences/power`.
    static func defaultsSuite(_ folder: URL) throws -> [String: Int] {
        let suite = DefaultsSuite(suiteName: "power", folder: folder.appendingPathComponent("Preferences/power", isDirectory: true))
        try suite.reload()
        var values: [String: Int] = [:]
        for key in keys where suite.object(forKey: key) != nil { values[key] = suite.integer(forKey: key) }
        return values
    }
}
