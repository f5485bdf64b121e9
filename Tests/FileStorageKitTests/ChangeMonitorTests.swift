import Testing
import Foundation
import TestSupport
@testable import FileStorageKit

/// `FileChangeMonitor`: inotify on Linux, the identity-polling fallback elsewhere or when the folder is missing.
@Suite struct ChangeMonitorTests {
    #if os(Linux)
    @Test func usesInotifyForAnExistingFolder() throws {
        let temp = try TemporaryFolder()
        #expect(FileChangeMonitor(url: temp.file("a.plist")).usesInotify)
    }
    #endif

    @Test func tokenChangesAfterADurableWrite() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("a.plist")
        let monitor = FileChangeMonitor(url: url)
        let initial = monitor.changeToken
        // Unchanged file, unchanged token (a question costs nothing and says nothing new).
        #expect(monitor.changeToken == initial)
        try DurableFile.write(Data("one".utf8), to: url)
        #expect(waitUntil { monitor.changeToken != initial })
        let second = monitor.changeToken
        try DurableFile.write(Data("two".utf8), to: url)
        #expect(waitUntil { monitor.changeToken != second })
    }

    @Test func tokenChangesWhenTheFileIsWrittenInPlaceOrDeleted() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("a.plist")
        try DurableFile.write(Data("one".utf8), to: url)
        let monitor = FileChangeMonitor(url: url)
        let initial = monitor.changeToken
        try Data("in place".utf8).write(to: url)  // not atomic: open, write, close in place
        #expect(waitUntil { monitor.changeToken != initial })
        let afterWrite = monitor.changeToken
        try FileManager.default.removeItem(at: url)
        #expect(waitUntil { monitor.changeToken != afterWrite })
    }

    @Test func tokenIgnoresOtherFilesInTheFolder() throws {
        let temp = try TemporaryFolder()
        let watched = temp.file("a.plist")
        let neighbour = temp.file("b.plist")
        try DurableFile.write(Data("a".utf8), to: watched)
        let monitor = FileChangeMonitor(url: watched)
        let control = FileChangeMonitor(url: neighbour)
        let initial = monitor.changeToken
        let controlInitial = control.changeToken
        // A queue overflow (other tests' writers flooding folders this process watches) rightly counts
        // as a change of every file; the quiet-window check holds only when none happened.
        let overflowMark = InotifyHub.shared?.overflowMark() ?? 0

        try DurableFile.write(Data("b1".utf8), to: neighbour)
        try Data("b2".utf8).write(to: neighbour)
        try DurableFile.write(Data("b3".utf8), to: temp.file("a.plist.bak"))
        try DurableFile.write(Data("b4".utf8), to: temp.file("a.plis"))
        try DurableFile.remove(neighbour)
        // The control monitor proves the events were delivered and processed (both monitors are bumped by
        // the same reader thread); after that, a quiet window for the watched file's token.
        // Three events name the neighbour (a rename into place, a close after writing, a delete); the
        // delete comes last, so once all three are counted, every earlier event has been read too.
        #expect(waitUntil { control.changeToken &- controlInitial >= 3 })
        let changedWrongly = waitUntil(timeout: .milliseconds(300), interval: .milliseconds(5)) { monitor.changeToken != initial }
        let overflowed = InotifyHub.shared?.overflowed(since: overflowMark) ?? false
        if overflowed { print("ChangeMonitorTests: the inotify queue overflowed during the window; its quiet check is skipped") }
        #expect(!changedWrongly || overflowed)
    }

    @Test func fallbackDetectsAFileWhoseFolderAppearsLater() throws {
        let temp = try TemporaryFolder()
        let folder = temp.folder("later")
        let url = folder.appendingPathComponent("a.plist")
        let monitor = FileChangeMonitor(url: url)
        #expect(!monitor.usesInotify)
        let initial = monitor.changeToken
        try AppDirectories.createFolder(folder)
        try DurableFile.write(Data("one".utf8), to: url)
        let started = ContinuousClock.now
        let seen = waitUntil(timeout: .seconds(3), interval: .milliseconds(1)) { monitor.changeToken != initial }
        let delay = ContinuousClock.now - started
        print("ChangeMonitorTests: the polling fallback saw the new file after \(delay) (interval \(FileChangeMonitor.fallbackInterval))")
        #expect(seen)

        // And a later replacement of the same size, too (a new inode and change time, whatever the size).
        let second = monitor.changeToken
        try DurableFile.write(Data("two".utf8), to: url)
        #expect(waitUntil(timeout: .seconds(3), interval: .milliseconds(1)) { monitor.changeToken != second })
        // Then it stays put while nothing changes.
        let settled = monitor.changeToken
        #expect(!waitUntil(timeout: .milliseconds(200), interval: .milliseconds(10)) { monitor.changeToken != settled })
    }

    /// `DurableFile` writes through a symbolic link to a file in the same folder, so a monitor of the
    /// link must notice such writes; inotify events name the link's target, not the link.
    @Test func tokenChangesWhenTheFileIsASymlinkInTheSameFolder() throws {
        let temp = try TemporaryFolder()
        let link = temp.file("link.plist")
        try DurableFile.write(Data("one".utf8), to: temp.file("real.plist"))
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.plist")
        let monitor = FileChangeMonitor(url: link)
        let initial = monitor.changeToken
        try DurableFile.write(Data("two".utf8), to: link)
        #expect(try DurableFile.read(link) == Data("two".utf8))
        #expect(waitUntil(timeout: .seconds(2)) { monitor.changeToken != initial })
    }

    /// A watched folder that is removed and made again (a user clearing the preferences folder) loses
    /// its inotify watch; the monitor must still notice the new file.
    @Test func tokenChangesAfterTheFolderIsRemovedAndMadeAgain() throws {
        let temp = try TemporaryFolder()
        let folder = temp.folder("prefs")
        let url = folder.appendingPathComponent("a.plist")
        try AppDirectories.createFolder(folder)
        try DurableFile.write(Data("one".utf8), to: url)
        let monitor = FileChangeMonitor(url: url)
        let initial = monitor.changeToken
        try FileManager.default.removeItem(at: folder)
        // Removing the folder deletes the file first, an event the monitor still sees.
        #expect(waitUntil { monitor.changeToken != initial })
        let afterRemoval = monitor.changeToken
        try AppDirectories.createFolder(folder)
        try DurableFile.write(Data("two".utf8), to: url)
        #expect(waitUntil(timeout: .seconds(2)) { monitor.changeToken != afterRemoval })
    }

    @Test func manyMonitorsOfOneFileAllSeeTheChange() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("shared.plist")
        let monitors = (0..<5).map { _ in FileChangeMonitor(url: url) }
        let initial = monitors.map(\.changeToken)
        try DurableFile.write(Data("x".utf8), to: url)
        #expect(waitUntil { zip(monitors, initial).allSatisfy { $0.changeToken != $1 } })
    }

    @Test func aReleasedMonitorDoesNotStopOthers() throws {
        let temp = try TemporaryFolder()
        let url = temp.file("shared.plist")
        let survivor = FileChangeMonitor(url: url)
        do {
            let transient = FileChangeMonitor(url: url)
            _ = transient.changeToken
        }
        let initial = survivor.changeToken
        try DurableFile.write(Data("x".utf8), to: url)
        #expect(waitUntil { survivor.changeToken != initial })
        // A new monitor on the same folder after a release still works.
        let again = FileChangeMonitor(url: url)
        let againInitial = again.changeToken
        try DurableFile.write(Data("y".utf8), to: url)
        #expect(waitUntil { again.changeToken != againInitial })
    }
}
