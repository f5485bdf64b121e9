import Foundation
import ProfileKit
import Testing
import TestSupport

/// The `profile` app: its commands run in-process with `--folder` set to the test's own temporary
/// folder, and the built program where processes are the point (several at once, the environment).
@Suite("profile app")
struct ProfileAppTests {
    /// Runs `profile <subcommand> --folder <folder> <rest>` in-process.
    func profile(_ subcommand: String, _ rest: String..., folder: URL) async -> CommandRun {
        await profile([subcommand] + rest, folder: folder)
    }

    /// Runs `profile` with `arguments`, `--folder <folder>` inserted after the subcommand.
    func profile(_ arguments: [String], folder: URL) async -> CommandRun {
        let all = arguments.prefix(1) + ["--folder", folder.path] + arguments.dropFirst()
        return await ProfileCommand.runCaptured(Array(all))
    }

    /// The fields of the file, as a Codable struct with the same properties decodes them.
    struct StoredProfile: Codable {
        var name: String
        var email: String
        var launches: Int
        var theme: String
        var lastUpdated: Date?
    }

    func stored(in temp: TemporaryFolder) throws -> StoredProfile {
        try PropertyListDecoder().decode(StoredProfile.self, from: Data(contentsOf: temp.file("UserProfile.storage.plist")))
    }

    /// `show`'s lines as key → printed value.
    func fields(_ run: CommandRun) -> [String: String] {
        var result: [String: String] = [:]
        for line in run.output.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            result[String(line[..<space])] = line[space...].trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    @Test("set, show, get and increment change and print the profile file")
    func setShowIncrement() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        let first = await profile("show", folder: temp.url)
        #expect(first.status == 0, "\(first)")
        #expect(fields(first)["name"] == "\"\"")
        #expect(fields(first)["theme"] == "\"system\"")
        #expect(fields(first)["lastUpdated"] == "none")
        #expect(fields(first)["file"] == temp.file("UserProfile.storage.plist").path)
        #expect(try stored(in: temp).launches == 0)   // the first use wrote the defaults

        for (key, value, printed) in [("name", "Ada Lovelace", "\"Ada Lovelace\""), ("email", "ada@example.com", "\"ada@example.com\""),
                                      ("theme", "Dark", "\"dark\""), ("launches", "41", "41")] {
            let set = await profile("set", key, value, folder: temp.url)
            #expect(set.status == 0, "\(set)")
            #expect(set.line == "\(key) = \(printed)")
        }
        let increment = await profile("increment", "launches", folder: temp.url)
        #expect(increment.status == 0, "\(increment)")
        #expect(increment.line == "42")
        let byTen = await profile("increment", "launches", "--by", "10", folder: temp.url)
        #expect(byTen.line == "52", "\(byTen)")

        let show = await profile("show", folder: temp.url)
        let shown = fields(show)
        #expect(shown["name"] == "\"Ada Lovelace\"")
        #expect(shown["email"] == "\"ada@example.com\"")
        #expect(shown["launches"] == "52")
        #expect(shown["theme"] == "\"dark\"")
        let lastUpdated = try #require(shown["lastUpdated"])
        #expect(ISO8601DateFormatter().date(from: lastUpdated) != nil
                || lastUpdated.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/) != nil, "\(lastUpdated)")

        let file = try stored(in: temp)
        #expect(file.name == "Ada Lovelace" && file.email == "ada@example.com" && file.launches == 52 && file.theme == "dark")
        #expect(file.lastUpdated != nil)
        let get = await profile("get", "NAME", folder: temp.url)
        #expect(get.line == "Ada Lovelace", "\(get)")

        let date = await profile("set", "lastUpdated", "2025-01-31T09:30:00Z", folder: temp.url)
        #expect(date.line == "lastUpdated = 2025-01-31T09:30:00Z", "\(date)")
        #expect(try stored(in: temp).lastUpdated == Date(timeIntervalSince1970: 1_738_315_800))
        let cleared = await profile("set", "lastUpdated", "none", folder: temp.url)
        #expect(cleared.line == "lastUpdated = none", "\(cleared)")
        #expect(try stored(in: temp).lastUpdated == nil)
    }

    @Test("an unknown key or a bad value exits 64 with a message and leaves the file alone")
    func badInput() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        _ = await profile("set", "launches", "3", folder: temp.url)
        let before = try Data(contentsOf: temp.file("UserProfile.storage.plist"))

        let unknown = await profile("set", "age", "3", folder: temp.url)
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.errors.contains("'age'") && unknown.errors.contains("lastUpdated"), "\(unknown)")

        let cases: [(arguments: [String], message: String)] = [
            (["set", "launches", "many"], "launches needs a whole number, 0 or more; got \"many\""),
            (["set", "launches", "--", "-1"], "launches needs a whole number"),
            (["set", "theme", "purple"], "theme needs system, light, dark; got \"purple\""),
            (["set", "email", "not an address"], "email needs an address"),
            (["set", "lastUpdated", "yesterday"], "lastUpdated needs an ISO 8601 time"),
            (["increment", "name"], "only launches can be incremented"),
            (["increment", "launches", "--by", "-4"], "launches must stay between 0 and"),
        ]
        for (arguments, message) in cases {
            let run = await profile(arguments, folder: temp.url)
            #expect(run.status == 64, "\(run)")
            #expect(run.errors.contains(message), "\(run)")
            #expect(run.output.isEmpty, "\(run)")
        }
        #expect(try Data(contentsOf: temp.file("UserProfile.storage.plist")) == before)
    }

    @Test("concurrent increments from several processes (the built program) lose nothing")
    func concurrentIncrements() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        let processes = 6
        let children = try (0..<processes).map { _ in
            try ChildProcess.start(try ChildProcess.builtProgram("profile"), ["increment", "--folder", temp.url.path, "launches"])
        }
        try await ChildProcess.waitForAll(children, deadline: .now + .seconds(120))
        for child in children { #expect(child.termination == .exited(0), "\(child.standardError)") }
        let printed = children.compactMap { Int($0.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) }.sorted()
        #expect(printed == Array(1...processes))
        #expect(try stored(in: temp).launches == processes)
    }

    @Test("a corrupt file is moved aside with a warning, and the command goes on with the defaults")
    func corruptFile() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        let garbage = Data("not a property list".utf8)
        try garbage.write(to: temp.file("UserProfile.storage.plist"))
        let show = await profile("show", folder: temp.url)
        #expect(show.status == 0, "\(show)")
        #expect(show.errors.contains("profile: warning:") && show.errors.contains("moved aside to UserProfile.storage.plist.corrupt-"),
                "\(show)")
        #expect(fields(show)["theme"] == "\"system\"")
        let aside = try temp.entries().filter { $0.hasPrefix("UserProfile.storage.plist.corrupt-") }
        #expect(aside.count == 1)
        #expect(try aside.first.map { try Data(contentsOf: temp.file($0)) } == garbage)
        #expect(try stored(in: temp).theme == "system")   // a fresh file with the defaults
    }

    @Test("a folder that cannot be created is an error with exit status 1")
    func unwritableFolder() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        let blocker = temp.file("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let set = await profile("set", "name", "Ada", folder: blocker)
        #expect(set.status == 1, "\(set)")
        #expect(set.errors.contains("Error:") || set.errors.contains("profile: error:"), "\(set)")
        let show = await profile("show", folder: blocker)
        #expect(show.status == 1, "\(show)")
        #expect(show.errors.contains("profile: error:"), "\(show)")
    }

    @Test("path and reset")
    func pathAndReset() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        let url = temp.file("UserProfile.storage.plist")
        let path = await profile("path", folder: temp.url)
        #expect(path.line == url.path, "\(path)")
        #expect(try temp.entries().isEmpty)   // path reads and writes nothing
        let nothing = await profile("reset", folder: temp.url)
        #expect(nothing.status == 0 && nothing.line == "no profile at \(url.path)", "\(nothing)")
        _ = await profile("set", "name", "Ada", folder: temp.url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        let reset = await profile("reset", folder: temp.url)
        #expect(reset.line == "removed \(url.path)", "\(reset)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("without --folder the built program's default folder follows PERSISTENCE_TOOLKIT_ROOT")
    func defaultFolderFollowsTheEnvironment() async throws {
        let temp = try TemporaryFolder(prefix: "profile-test")
        // The child gets its own environment; this process's stays as it is.
        var environment = ProcessInfo.processInfo.environment
        environment["PERSISTENCE_TOOLKIT_ROOT"] = temp.url.path
        let root = try await BuiltProgram.run("profile", ["set", "name", "Root"], environment: environment)
        #expect(root.termination == .exited(0), "\(root)")
        let rooted = temp.folder("ApplicationSupport").appendingPathComponent("UserProfile.storage.plist")
        let defaultPath = try await BuiltProgram.run("profile", ["path"], environment: environment)
        #expect(defaultPath.line == rooted.path, "\(defaultPath)")
        #expect(FileManager.default.fileExists(atPath: rooted.path))
        // The program's exit status and standard error for bad input, as a shell sees them.
        let bad = try await BuiltProgram.run("profile", ["set", "theme", "purple"], environment: environment)
        #expect(bad.termination == .exited(64) && bad.errors.contains("theme needs system, light, dark; got \"purple\""), "\(bad)")
        #expect(bad.output.isEmpty, "\(bad)")
    }
}
