import Foundation
import ModelPersistence   // re-exports Observation

/// The model under test: five stored properties, kept in `BenchProfile.storage.plist`.
@PersistedModel
final class BenchProfile {
    var name: String = "model-bench"
    var count: Int = 7
    var score: Double = 0.5
    var enabled: Bool = true
    var tags: [String] = ["alpha", "beta", "gamma"]
}

/// The same properties in an `@Observable` class: the in-memory peer for gets.
@Observable
final class ObservedProfile {
    var name: String = "model-bench"
    var count: Int = 7
    var score: Double = 0.5
    var enabled: Bool = true
    var tags: [String] = ["alpha", "beta", "gamma"]
}

/// The same properties as a Codable struct: what DocumentData decodes from the file on every get and
/// encodes on every set. `PropertyListEncoder` writes the same bytes for it as `BenchProfile`'s file.
struct ProfileShape: Codable, Equatable {
    var name: String = "model-bench"
    var count: Int = 7
    var score: Double = 0.5
    var enabled: Bool = true
    var tags: [String] = ["alpha", "beta", "gamma"]
}

// MARK: Reads the optimizer cannot see through

/// Returns its argument; compiled without optimization, so the caller cannot know which object it gets.
@_optimize(none)
func opaque<T>(_ value: T) -> T { value }

/// Reads `count` of a `BenchProfile` handed over as `AnyObject`: one real call per get, never inlined
/// into the loop, with the getter compiled as an app would compile it.
@inline(never)
func persistedCount(_ object: AnyObject) -> Int {
    unsafeDowncast(object, to: BenchProfile.self).count
}

/// The same read of an `@Observable` class.
@inline(never)
func observedCount(_ object: AnyObject) -> Int {
    unsafeDowncast(object, to: ObservedProfile.self).count
}

/// DocumentData's get: read the whole file and decode the whole struct, for one property.
@inline(never)
func decodePerReadCount(_ url: URL) throws -> Int {
    try PropertyListDecoder().decode(ProfileShape.self, from: Data(contentsOf: url)).count
}

/// DocumentData's set: read and decode the file, change one property, encode, write it `.atomic`.
@inline(never)
func documentDataSet(_ url: URL, count: Int) throws {
    var shape = try PropertyListDecoder().decode(ProfileShape.self, from: Data(contentsOf: url))
    shape.count = count
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    try encoder.encode(shape).write(to: url, options: .atomic)
}
