import Foundation
import Testing
import PlistCodec
import TestSupport
@testable import FileStorageKit

/// Issue 11, item 7: `DefaultsSuite` reads what `Foundation.UserDefaults` reads, where that loses nothing.
///
/// Foundation's side runs in `defaults-oracle`, a child process with a deadline (`UserDefaults` on
/// this machine can spin or crash on some calls) and its own HOME, so the test process's environment
/// and the real preferences are never touched.
@Suite struct DefaultsSuiteFoundationTests {
    /// Where the suite deliberately answers differently, and why.
    static let deliberateDifferences: [String: String] = [
        // Foundation gives Int.min for a real beyond Int's range: garbage, so 0 here.
        "double-1e20 integer": "i:0",
    ]

    /// Stores `value` in the suite as the matching typed setter would.
    func store(_ value: DefaultsOracleCase.Stored, _ key: String, in suite: DefaultsSuite) throws {
        switch value {
        case .bool(let v): try suite.set(v, forKey: key)
        case .int(let v): try suite.set(v, forKey: key)
        case .double(let v): try suite.set(v, forKey: key)
        case .float(let v): try suite.set(v, forKey: key)
        case .string(let v): try suite.set(v, forKey: key)
        case .date(let v): try suite.set(v, forKey: key)
        case .data(let v): try suite.set(v, forKey: key)
        }
    }

    @Test func everyTypedGetterAgreesWithUserDefaults() async throws {
        let temp = try TemporaryFolder(prefix: "defaults-oracle")
        let home = temp.folder("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
        let oracle = try ChildProcess.start(try ChildProcess.builtProgram("defaults-oracle"), ["com.example.oracle"],
                                            environment: environment)
        let end = try await oracle.waitForExit(deadline: .now + .seconds(180))
        try #require(end == .exited(0), "\(oracle.error("\(end)"))")
        var foundation: [String: [String]] = [:]
        for line in oracle.outputLines {
            let fields = line.components(separatedBy: "\t")
            foundation[fields[0]] = Array(fields.dropFirst())
        }
        try #require(foundation.count == DefaultsOracleCase.all.count + 1, "\(oracle.error("missing answers"))")

        let suite = DefaultsSuite(suiteName: "com.example.ours", folder: temp.folder("prefs"))
        var compared = 0
        for (name, stored) in DefaultsOracleCase.all {
            try store(stored, name, in: suite)
            let ours = [
                DefaultsOracleCase.format(suite.string(forKey: name)),
                DefaultsOracleCase.format(suite.integer(forKey: name)),
                DefaultsOracleCase.format(suite.double(forKey: name)),
                DefaultsOracleCase.format(suite.float(forKey: name)),
                DefaultsOracleCase.format(suite.bool(forKey: name)),
                { if case .data = stored { return "skipped" } else { return DefaultsOracleCase.format(suite.url(forKey: name)) } }(),
            ]
            let theirs = try #require(foundation[name])
            for (index, getter) in DefaultsOracleCase.getters.enumerated() {
                let expected = Self.deliberateDifferences["\(name) \(getter)"] ?? theirs[index]
                #expect(ours[index] == expected, "\(getter)(forKey:) on \(name): ours \(ours[index]), Foundation \(theirs[index])")
                compared += 1
            }
        }
        print("DefaultsSuiteFoundationTests: \(compared) answers compared with UserDefaults, "
            + "\(Self.deliberateDifferences.count) deliberate differences")
        // Foundation keeps a date's fraction; so does the suite, after reopening too.
        let fraction = try #require(foundation["date-roundtrip"]?.first.flatMap(UInt64.init))
        let reopened = DefaultsSuite(suiteName: "com.example.ours", folder: temp.folder("prefs"))
        #expect(reopened.date(forKey: "date")?.timeIntervalSinceReferenceDate.bitPattern == fraction)
    }

    @Test func floatsAndURLsRoundTrip() throws {
        let temp = try TemporaryFolder(prefix: "defaults-url")
        let suite = DefaultsSuite(suiteName: "urls", folder: temp.url)
        try suite.set(Float(0.1), forKey: "ratio")
        #expect(suite.float(forKey: "ratio") == Float(0.1))
        #expect(suite.string(forKey: "ratio") == "0.1")
        let file = URL(fileURLWithPath: "/var/data/report 1.txt")
        try suite.set(file, forKey: "report")
        #expect(suite.string(forKey: "report") == "/var/data/report 1.txt", "a file URL is stored as its path")
        #expect(suite.url(forKey: "report") == file)
        let web = URL(string: "https://example.com/a?b=c")!
        try suite.set(web, forKey: "site")
        #expect(suite.url(forKey: "site") == web)
        let reopened = DefaultsSuite(suiteName: "urls", folder: temp.url)
        #expect(reopened.url(forKey: "report") == file && reopened.url(forKey: "site") == web)
        #expect(reopened.float(forKey: "ratio") == Float(0.1))
        try suite.set(nil as URL?, forKey: "site")
        try suite.set(nil, forKey: "report")
        #expect(suite.url(forKey: "site") == nil && suite.url(forKey: "report") == nil)
        try suite.set("~/notes.txt", forKey: "tilde")
        #expect(suite.url(forKey: "tilde")?.path == NSString(string: "~/notes.txt").expandingTildeInPath)
    }

    /// Code ported from `UserDefaults` compiles and works inside an `async` function: no `async`
    /// overload of the same name takes its calls over.
    @Test func portedCallsWorkInAsyncCode() async throws {
        let temp = try TemporaryFolder(prefix: "defaults-async-port")
        let defaults = DefaultsSuite(suiteName: "ported", folder: temp.url)
        try defaults.set(true, forKey: "onboarded")
        try defaults.set(3, forKey: "launches")
        try defaults.set("Ada", forKey: "name")
        try defaults.set(Float(1.5), forKey: "scale")
        try defaults.removeObject(forKey: "name")
        try defaults.set(nil, forKey: "launches")
        #expect(defaults.bool(forKey: "onboarded") && defaults.object(forKey: "launches") == nil)
        // The async writers, under their own names.
        try await defaults.async.set(4, forKey: "launches")
        #expect(try await defaults.async.increment("launches") == 5)
        #expect(DefaultsSuite(suiteName: "ported", folder: temp.url).integer(forKey: "launches") == 5)
    }

    /// Issue 11, item 4: setting an equal Codable value again, whose encoding lists its keys in
    /// declaration order while the file holds them sorted, neither rewrites the file nor notifies.
    @Test func anEqualCodableValueIsNotRewrittenWhateverItsKeyOrder() async throws {
        struct Theme: Codable { var name: String; var accent: String; var size: Int; var bold: Bool }
        let temp = try TemporaryFolder(prefix: "defaults-key-order")
        let suite = DefaultsSuite(suiteName: "theme", folder: temp.url)
        try suite.set(encoding: Theme(name: "Ocean", accent: "teal", size: 14, bold: false), forKey: "theme")
        let first = try Data(contentsOf: suite.url)
        let monitorToken = try FileManager.default.attributesOfItem(atPath: suite.url.path)[.modificationDate] as? Date
        var changes = suite.changes().makeAsyncIterator()
        try suite.set(encoding: Theme(name: "Ocean", accent: "teal", size: 14, bold: false), forKey: "theme")
        try await suite.async.set(encoding: Theme(name: "Ocean", accent: "teal", size: 14, bold: false), forKey: "theme")
        #expect(try Data(contentsOf: suite.url) == first)
        #expect(try FileManager.default.attributesOfItem(atPath: suite.url.path)[.modificationDate] as? Date == monitorToken)
        // A real change is the next (and only) notification.
        try suite.set(7, forKey: "marker")
        #expect(await changes.next() == "marker")
    }
}
