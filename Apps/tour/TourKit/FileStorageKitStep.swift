import FileStorageKit
import Foundation
import PlistCodec

/// The FileStorageKit scenario: app folders, a settings file, an atomic counter, a preferences suite
/// seen by two instances, and the typed error a corrupt file gives.
struct FileStorageKitStep: TourStep {
    var name: String { "FileStorageKit" }
    var summary: String { "folders, durable plist files, atomic updates, a defaults suite, a corrupt file" }

    /// The sample settings the step writes and reads back.
    struct Settings: Codable, Equatable {
        var theme: String
        var fontSize: Double
        var recentFiles: [String]
    }

    /// A counter kept in its own file and changed only through `update`.
    struct Launches: Codable, Equatable {
        var count: Int
    }

    @MainActor func run(_ context: TourContext) async throws {
        // Every folder under the step's own folder: `root:` beats PERSISTENCE_TOOLKIT_ROOT and $HOME.
        let dirs = AppDirectories(appName: "tour", root: context.folder)
        let support = try dirs.applicationSupport(creating: true)
        let preferences = try dirs.preferences(creating: true)
        context.say("AppDirectories(appName: \"tour\", root: <step folder>):")
        for (label, url) in [("applicationSupport", dirs.applicationSupport), ("documents", dirs.documents),
                             ("caches", dirs.caches), ("preferences", dirs.preferences)] {
            context.say("  \(label.padding(toLength: 18, withPad: " ", startingAt: 0)) <step folder>/"
                + url.path.dropFirst(context.folder.path.count).drop { $0 == "/" })
        }

        try settingsFile(context, in: support)
        try defaultsSuite(context, in: preferences)
        try corruptFile(context, in: support)
    }

    /// Writes a settings struct, reads it back, and counts launches with an atomic `update`.
    private func settingsFile(_ context: TourContext, in support: URL) throws {
        let storage = PlistFileStorage()
        let settingsURL = support.appendingPathComponent("settings.plist")
        let settings = Settings(theme: "dark", fontSize: 13.5, recentFiles: ["notes.txt", "Übersicht.md"])
        try storage.write(settings, to: settingsURL)
        let loaded: Settings = try storage.data(for: settingsURL)
        try check(loaded == settings, "settings read back differ: \(loaded)")
        context.say("")
        context.say("PlistFileStorage: wrote settings.plist (\(try fileSize(settingsURL)) bytes, XML, mode "
            + "\(try modeString(settingsURL))), read it back: equal")

        // Read, change and write under the file's lock: no other thread or process can slip in between.
        let counterURL = support.appendingPathComponent("launches.plist")
        var seen: [Int] = []
        for _ in 0..<3 {
            seen.append(try storage.update(at: counterURL, default: Launches(count: 0)) { $0.count += 1 }.count)
        }
        try check(seen == [1, 2, 3], "update gave \(seen), expected [1, 2, 3]")
        context.say("update(at:default:) three times under the lock: count \(seen.map(String.init).joined(separator: " -> "))")
    }

    /// A `DefaultsSuite`: defaults, typed values, the binary file, a second instance, an atomic increment.
    private func defaultsSuite(_ context: TourContext, in preferences: URL) throws {
        let suiteName = "com.example.tour"
        let suite = DefaultsSuite(suiteName: suiteName, folder: preferences, lockTimeout: .seconds(30))
        suite.register(defaults: ["volume": .int(5), "theme": .string("light")])
        let opened = Date(timeIntervalSince1970: 1_735_689_600.75)  // 2025-01-01T00:00:00.75Z
        try suite.set(true, forKey: "onboarded")
        try suite.set("Ada", forKey: "userName")
        try suite.set(8, forKey: "volume")
        try suite.set(opened, forKey: "lastOpened")
        try check(suite.integer(forKey: "volume") == 8 && suite.string(forKey: "theme") == "light",
                  "volume \(suite.integer(forKey: "volume")), theme \(suite.string(forKey: "theme") ?? "nil")")
        context.say("")
        context.say("DefaultsSuite \"\(suiteName)\": registered volume=5, theme=light; set onboarded, userName, "
            + "volume=8, lastOpened")
        context.say("  reads: volume \(suite.integer(forKey: "volume")) (stored), theme \(suite.string(forKey: "theme") ?? "nil") "
            + "(registered, not in the file), onboarded \(suite.bool(forKey: "onboarded"))")
        let storedDate = suite.date(forKey: "lastOpened")
        try check(storedDate == opened, "lastOpened read back as \(String(describing: storedDate))")
        context.say("  lastOpened set to …00.750 Z, read back equal, fraction included (the file is a binary plist, "
            + "as Apple writes preferences)")

        let bytes = try DurableFile.read(suite.url)
        try check(bytes.starts(with: Array("bplist00".utf8)), "the suite's file is not a binary plist")
        let text = String(decoding: try PlistValue(parsing: bytes).serialized(as: .xml), as: UTF8.self)
        context.say("  \(suite.url.lastPathComponent) (\(bytes.count) bytes of bplist00: stored keys only, sorted), as XML:")
        for line in text.split(separator: "\n").prefix(10) {
            context.say("    | " + line.replacingOccurrences(of: "\t", with: "  "))
        }

        // A second instance (in another process it would be the same) notices the first one's write.
        let other = DefaultsSuite(suiteName: suiteName, folder: preferences, lockTimeout: .seconds(30))
        try check(other.string(forKey: "status") == nil, "status is set before anyone set it")
        let clock = ContinuousClock()
        let start = clock.now
        try suite.set("ready", forKey: "status")
        _ = waitFor(seconds: 2) { other.string(forKey: "status") == "ready" }
        let waited = clock.now - start
        try check(other.string(forKey: "status") == "ready", "the second instance did not see status=ready within 2 s")
        context.say("  a second instance sees status=ready \(milliseconds(waited)) ms after the first began setting it")

        // `x += 1` through a getter and a setter can lose updates across processes; increment cannot.
        let first = try suite.increment("launches")
        let second = try other.increment("launches")
        try check(first == 1 && second == 2, "increments gave \(first), \(second)")
        context.say("  increment(\"launches\") from each instance, atomically: \(first), then \(second)")
    }

    /// Garbage in a file: a typed error, and the file left exactly as it was.
    private func corruptFile(_ context: TourContext, in support: URL) throws {
        let storage = PlistFileStorage()
        let url = support.appendingPathComponent("broken.plist")
        let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>theme</key><string>da".utf8)
        try DurableFile.write(garbage, to: url)
        context.say("")
        context.say("broken.plist: \(garbage.count) bytes of truncated XML")
        do {
            let _: Settings = try storage.data(for: url)
            throw TourFailure("reading a truncated file succeeded")
        } catch let error as FileStorageError {
            guard case .corrupt = error else { throw TourFailure("expected .corrupt, got \(error)") }
            context.say("  data(for:) throws FileStorageError.corrupt: \(error.description.dropFirst(support.path.count + 1))")
        }
        do {
            try storage.update(at: url, default: Settings(theme: "light", fontSize: 12, recentFiles: [])) { $0.theme = "dark" }
            throw TourFailure("updating a truncated file succeeded")
        } catch let error as FileStorageError {
            guard case .corrupt = error else { throw TourFailure("expected .corrupt from update, got \(error)") }
            context.say("  update(at:) throws .corrupt too, instead of overwriting the file with a default")
        }
        try check(try DurableFile.read(url) == garbage, "the corrupt file was changed")
        context.say("  the file still holds the same \(garbage.count) bytes")
    }

    private func fileSize(_ url: URL) throws -> Int { try DurableFile.read(url).count }

    private func modeString(_ url: URL) throws -> String {
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        return mode.map { "0" + String($0, radix: 8) } ?? "?"
    }

    private func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }
}
