import FileStorageKit
import Foundation
import ModelPersistence
import PlistCodec
import Synchronization

/// The sample model of the ModelPersistence step: three persisted properties and one that is not.
@PersistedModel
final class TourSettings {
    var userName: String = "guest"
    var volume: Int = 5
    var visits: Int = 0
    /// Kept in memory only: not in the file, not observed.
    @PersistedIgnored var scratch: String = "in memory only"
}

/// The ModelPersistence scenario: a `@PersistedModel` class written on first use, read by a second
/// instance, changed atomically, batched, and recovering from a corrupt file.
struct ModelPersistenceStep: TourStep {
    var name: String { "ModelPersistence" }
    var summary: String { "a @PersistedModel class: first use, a second instance, update, withBatch, a corrupt file" }

    /// A Codable struct with the persisted fields in declaration order: the file holds what
    /// `PropertyListEncoder` writes for it.
    struct Shape: Codable {
        var userName: String
        var volume: Int
        var visits: Int
    }

    @MainActor func run(_ context: TourContext) async throws {
        // Every model used inside stores its file in the step's folder; nothing process-wide changes.
        try PersistenceLocation.$folder.withValue(context.folder) {
            let settings = try firstUse(context)
            try secondInstance(context, settings)
            try batch(context, settings)
            try ignored(context, settings)
            try corruptFile(context, settings)
        }
    }

    /// Creating an instance touches nothing; the first property use writes the file.
    private func firstUse(_ context: TourContext) throws -> TourSettings {
        let url = TourSettings.url
        try check(!TourSettings.isPersisted, "\(url.lastPathComponent) exists before first use")
        let settings = TourSettings()
        try check(!TourSettings.isPersisted, "creating the instance wrote the file")
        context.say("@PersistedModel final class TourSettings { userName, volume, visits; @PersistedIgnored scratch }")
        context.say("TourSettings.url = <step folder>/\(url.lastPathComponent); no file before first use")
        context.say("first use: userName is \"\(settings.userName)\"; the file now exists")
        let bytes = try DurableFile.read(url)
        let expected = try PropertyListEncoder().encode(Shape(userName: "guest", volume: 5, visits: 0))
        try check(bytes == expected, "the file is not what PropertyListEncoder writes for the same fields")
        context.say("  \(bytes.count) bytes, binary: exactly what PropertyListEncoder writes for "
            + "struct { userName, volume, visits }")
        return settings
    }

    /// A second instance reads what the first set; `update` makes read-modify-write atomic.
    private func secondInstance(_ context: TourContext, _ settings: TourSettings) throws {
        settings.userName = "Ada"
        let other = TourSettings()
        try check(other.userName == "Ada", "the second instance read \"\(other.userName)\", not \"Ada\"")
        context.say("")
        context.say("settings.userName = \"Ada\" (one durable write); a second TourSettings() reads \"Ada\": "
            + "the file wins over init's \"guest\"")

        let changed = Flag()
        withObservationTracking { _ = other.volume } onChange: { changed.raise() }
        settings.volume = 8
        // The second instance reloads on its next use once the change monitor sees the new file.
        let seen = waitFor(seconds: 5) { other.volume == 8 }
        try check(seen, "the second instance did not see volume 8 within 5 s")
        try check(changed.count == 1, "withObservationTracking on the second instance fired \(changed.count) times")
        context.say("settings.volume = 8; the second instance reloads, reads 8, and its observer fires once")

        var counts: [Int] = []
        for instance in [settings, other, settings] {
            counts.append(try instance.update { $0.visits += 1; return $0.visits })
        }
        try check(counts == [1, 2, 3], "update gave \(counts), expected [1, 2, 3]")
        context.say("update { $0.visits += 1 } on each instance in turn, under the file's lock: "
            + counts.map(String.init).joined(separator: " -> "))
        context.say("  (a plain `visits += 1` is a get and a set: not atomic across processes)")
    }

    /// Many sets inside `withBatch` are one write, at the end.
    private func batch(_ context: TourContext, _ settings: TourSettings) throws {
        let url = TourSettings.url
        var duringBatch: PlistValue?
        settings.withBatch { settings in
            for volume in 1...1_000 { settings.volume = volume }
            duringBatch = try? storedDictionary(url)["volume"]
        }
        try check(duringBatch == .int(8), "the file changed during the batch: volume \(String(describing: duringBatch))")
        let after = try storedDictionary(url)["volume"]
        try check(after == .int(1_000), "after the batch the file holds volume \(String(describing: after))")
        context.say("")
        context.say("withBatch { 1,000 sets of volume }: the file still says 8 inside the batch, "
            + "and 1000 after it (one write)")
    }

    /// `@PersistedIgnored` keeps a property out of the file.
    private func ignored(_ context: TourContext, _ settings: TourSettings) throws {
        settings.scratch = "changed in memory"
        let keys = try storedDictionary(TourSettings.url).keys
        try check(keys == ["userName", "volume", "visits"], "the file's keys are \(keys)")
        let fresh = TourSettings()
        try check(fresh.scratch == "in memory only" && fresh.userName == "Ada",
                  "a fresh instance has scratch \"\(fresh.scratch)\", userName \"\(fresh.userName)\"")
        context.say("")
        context.say("@PersistedIgnored scratch: the file's keys are \(keys.joined(separator: ", ")); "
            + "a new instance has init's scratch")
    }

    /// Garbage in the file: moved aside, reported through `PersistenceErrors`, values kept, then a fresh file.
    private func corruptFile(_ context: TourContext, _ settings: TourSettings) throws {
        let url = TourSettings.url
        let reported = Flag()
        let previousHandler = PersistenceErrors.handler
        PersistenceErrors.handler = { _ in reported.raise() }
        defer { PersistenceErrors.handler = previousHandler }

        let garbage = Data("this is not a property list".utf8)
        try garbage.write(to: url, options: .atomic)
        context.say("")
        context.say("another program writes \(garbage.count) bytes of garbage over \(url.lastPathComponent)")
        // The next use after the change monitor notices reads the file, finds garbage, and moves it aside.
        let noticed = waitFor(seconds: 5) {
            _ = settings.userName
            return settings.persistenceError != nil
        }
        try check(noticed, "no error was reported within 5 s")
        guard case .corruptFile(let plistError, let movedTo)? = settings.persistenceError?.cause, let movedTo else {
            throw TourFailure("expected a corrupt file moved aside, got \(String(describing: settings.persistenceError))")
        }
        try check(reported.count >= 1, "PersistenceErrors.handler saw no error")
        try check(try DurableFile.read(movedTo) == garbage, "the moved-aside file does not hold the garbage")
        try check(!TourSettings.isPersisted, "the corrupt file was rewritten in place instead of moved aside")
        context.say("  reported to PersistenceErrors.handler: \(settings.persistenceError?.operation.rawValue ?? "?") failed, "
            + "\(plistError)")
        context.say("  moved aside to \(movedTo.lastPathComponent)")
        try check(settings.userName == "Ada" && settings.volume == 1_000 && settings.visits == 3,
                  "the model lost its values: \(settings.userName), \(settings.volume), \(settings.visits)")
        context.say("  the model keeps its values: userName \"Ada\", volume 1000, visits 3")

        settings.volume = 9
        let stored = try storedDictionary(url)
        try check(stored["userName"] == .string("Ada") && stored["volume"] == .int(9) && stored["visits"] == .int(3),
                  "the fresh file holds \(stored)")
        context.say("settings.volume = 9 writes a fresh file from all the values: userName \"Ada\", volume 9, visits 3")
    }

    // MARK: Helpers

    /// The file's top-level dictionary.
    private func storedDictionary(_ url: URL) throws -> PlistDictionary {
        let value = try PlistValue(parsing: try DurableFile.read(url))
        guard case .dictionary(let dictionary) = value else {
            throw TourFailure("\(url.lastPathComponent) holds a \(value.kindName), not a dictionary")
        }
        return dictionary
    }
}
