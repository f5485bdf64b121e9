import Foundation
import Testing
import FileStorageKit
import TestSupport

/// `ChangeTokenSource` is the monitor's token without the monitor: it must agree with `changeToken`
/// while the watch lives, and step aside (`nil`) once the kernel dropped it, when only the monitor's
/// polling can tell.
@Suite("ChangeTokenSource")
struct ChangeTokenSourceTests {
    #if os(Linux)   // inotify: elsewhere every monitor polls, and has no source
    @Test func agreesWithTheMonitorAndStepsAsideWhenTheWatchIsLost() async throws {
        let temp = try TemporaryFolder()
        let folder = temp.folder("prefs")
        let url = folder.appendingPathComponent("a.plist")
        try AppDirectories.createFolder(folder)
        try DurableFile.write(Data("one".utf8), to: url)
        let monitor = FileChangeMonitor(url: url)
        let source = try #require(ChangeTokenSource(monitor))
        #expect(ChangeTokenSource(unsafeBits: source.unsafeBits).token == monitor.changeToken)
        let initial = monitor.changeToken
        #expect(source.token == initial)

        try DurableFile.write(Data("two".utf8), to: url)
        #expect(await waitUntil(timeout: .seconds(180)) { monitor.changeToken != initial })
        #expect(source.token == monitor.changeToken)

        try FileManager.default.removeItem(at: folder)
        #expect(await waitUntil(timeout: .seconds(180)) { source.token == nil })
        // The monitor still answers, by polling.
        let afterRemoval = monitor.changeToken
        try AppDirectories.createFolder(folder)
        try DurableFile.write(Data("three".utf8), to: url)
        #expect(await waitUntil(timeout: .seconds(180)) { monitor.changeToken != afterRemoval })
    }
    #endif
}
