import Testing
import Foundation
import TestSupport
@testable import FileStorageKit

/// `AppDirectories` resolved from explicit environments and roots: no test reads or sets the process environment.
@Suite struct AppDirectoriesTests {
    private func path(_ url: URL) -> String { url.standardizedFileURL.path }

    #if os(Linux)
    @Test func xdgVariablesAreUsedWhenAbsolute() throws {
        let temp = try TemporaryFolder()
        let env = ["HOME": temp.url.path, "XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "/x/config",
                   "XDG_CACHE_HOME": "/x/cache"]
        let dirs = AppDirectories(appName: "Cards", environment: env)
        #expect(path(dirs.applicationSupport) == "/x/data/Cards")
        #expect(path(dirs.preferences) == "/x/config/Cards")
        #expect(path(dirs.caches) == "/x/cache/Cards")
        #expect(path(dirs.documents) == temp.url.path + "/Documents/Cards")
        #expect(dirs.appName == "Cards")
    }

    @Test(arguments: [[String: String](), ["XDG_DATA_HOME": "rel/data", "XDG_CONFIG_HOME": "config",
                                          "XDG_CACHE_HOME": "./cache"], ["XDG_DATA_HOME": "", "XDG_CONFIG_HOME": "",
                                                                         "XDG_CACHE_HOME": ""]])
    func defaultsUnderHomeWhenUnsetOrRelative(xdg: [String: String]) throws {
        let temp = try TemporaryFolder()
        let home = temp.url.path
        let dirs = AppDirectories(appName: "Cards", environment: xdg.merging(["HOME": home]) { a, _ in a })
        #expect(path(dirs.applicationSupport) == home + "/.local/share/Cards")
        #expect(path(dirs.preferences) == home + "/.config/Cards")
        #expect(path(dirs.caches) == home + "/.cache/Cards")
        #expect(path(dirs.documents) == home + "/Documents/Cards")
    }

    /// Writes `contents` as `<home>/.config/user-dirs.dirs` and resolves documents from it.
    private func documents(userDirs contents: String?, in temp: TemporaryFolder) throws -> String {
        let config = temp.folder(".config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        if let contents {
            try Data(contents.utf8).write(to: config.appendingPathComponent("user-dirs.dirs"))
        }
        return path(AppDirectories(appName: "Cards", environment: ["HOME": temp.url.path]).documents)
    }

    @Test func documentsFromUserDirsFile() throws {
        let temp = try TemporaryFolder()
        let home = temp.url.path
        let header = "# This file is written by xdg-user-dirs-update\n# XDG_DOCUMENTS_DIR=\"$HOME/Commented\"\n"
        #expect(try documents(userDirs: header + "XDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOCUMENTS_DIR=\"$HOME/Docs\"\n",
                              in: temp) == home + "/Docs/Cards")
        #expect(try documents(userDirs: header + "XDG_DOCUMENTS_DIR=$HOME/Unquoted\n", in: temp) == home + "/Unquoted/Cards")
        #expect(try documents(userDirs: "XDG_DOCUMENTS_DIR=\"${HOME}/Braced\"\n", in: temp) == home + "/Braced/Cards")
        #expect(try documents(userDirs: "  XDG_DOCUMENTS_DIR=\"/srv/papers\"  \n", in: temp) == "/srv/papers/Cards")
        // Only comments, or no entry at all: the default.
        #expect(try documents(userDirs: header, in: temp) == home + "/Documents/Cards")
        #expect(try documents(userDirs: "XDG_MUSIC_DIR=\"$HOME/Music\"\n", in: temp) == home + "/Documents/Cards")
        // A relative value is not a folder the spec allows: the default.
        #expect(try documents(userDirs: "XDG_DOCUMENTS_DIR=\"Docs\"\n", in: temp) == home + "/Documents/Cards")
    }

    @Test func documentsDefaultWhenUserDirsFileIsMissing() throws {
        let temp = try TemporaryFolder()
        #expect(try documents(userDirs: nil, in: temp) == temp.url.path + "/Documents/Cards")
    }

    @Test func userDirsFileIsReadFromXDGConfigHome() throws {
        let temp = try TemporaryFolder()
        let config = temp.folder("elsewhere")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("XDG_DOCUMENTS_DIR=\"$HOME/FromXDG\"\n".utf8).write(to: config.appendingPathComponent("user-dirs.dirs"))
        let dirs = AppDirectories(appName: "Cards", environment: ["HOME": temp.url.path, "XDG_CONFIG_HOME": config.path])
        #expect(path(dirs.documents) == temp.url.path + "/FromXDG/Cards")
    }
    #endif

    @Test func rootParameterPutsEverythingUnderIt() throws {
        let temp = try TemporaryFolder()
        let root = temp.folder("root")
        let env = ["HOME": "/nonexistent-home", "XDG_DATA_HOME": "/x/data", AppDirectories.rootEnvironmentVariable: "/other"]
        let dirs = AppDirectories(appName: "Cards", root: root, environment: env)
        #expect(path(dirs.applicationSupport) == root.path + "/ApplicationSupport")
        #expect(path(dirs.documents) == root.path + "/Documents")
        #expect(path(dirs.caches) == root.path + "/Caches")
        #expect(path(dirs.preferences) == root.path + "/Preferences")
    }

    @Test func rootEnvironmentVariablePutsEverythingUnderIt() throws {
        let temp = try TemporaryFolder()
        let env = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/x/config",
                   AppDirectories.rootEnvironmentVariable: temp.url.path]
        let dirs = AppDirectories(appName: "Cards", environment: env)
        for (url, leaf) in [(dirs.applicationSupport, "ApplicationSupport"), (dirs.documents, "Documents"),
                            (dirs.caches, "Caches"), (dirs.preferences, "Preferences")] {
            #expect(path(url) == temp.url.path + "/" + leaf)
        }
        // An empty value is no root.
        let unrooted = AppDirectories(appName: "Cards", environment: ["HOME": temp.url.path, AppDirectories.rootEnvironmentVariable: ""])
        #expect(!path(unrooted.preferences).hasPrefix(temp.url.path + "/Preferences"))
    }

    @Test(arguments: ["a/b", "../../etc", ".hidden", "...", "/", "x/../y", "a\0b"])
    func appNameStaysOneComponent(name: String) throws {
        let temp = try TemporaryFolder()
        let dirs = AppDirectories(appName: name, environment: ["HOME": temp.url.path])
        #expect(!dirs.appName.isEmpty)
        #expect(!dirs.appName.contains("/"))
        #expect(!dirs.appName.hasPrefix("."))
        #if os(Linux)
        for (url, parent) in [(dirs.applicationSupport, "/.local/share"), (dirs.preferences, "/.config"),
                              (dirs.caches, "/.cache"), (dirs.documents, "/Documents")] {
            #expect(url.lastPathComponent == dirs.appName)
            #expect(path(url.deletingLastPathComponent()) == temp.url.path + parent, "\(name) → \(url.path)")
        }
        #endif
    }

    @Test func createdFoldersAreMode0700IncludingIntermediates() throws {
        let temp = try TemporaryFolder()
        let dirs = AppDirectories(appName: "Cards", environment: ["HOME": temp.url.path])
        let support = try dirs.applicationSupport(creating: true)
        let prefs = try dirs.preferences(creating: true)
        let caches = try dirs.caches(creating: true)
        let docs = try dirs.documents(creating: true)
        for url in [support, prefs, caches, docs] {
            #expect(permissionBits(url) == 0o700, "\(url.path)")
        }
        #if os(Linux)
        for intermediate in [".local", ".local/share", ".config", ".cache", "Documents"] {
            #expect(permissionBits(temp.folder(intermediate)) == 0o700, "\(intermediate)")
        }
        #endif
        let deep = temp.folder("p/q/r")
        try AppDirectories.createFolder(deep)
        for relative in ["p", "p/q", "p/q/r"] { #expect(permissionBits(temp.folder(relative)) == 0o700, "\(relative)") }
    }

    @Test func existingFoldersKeepTheirMode() throws {
        let temp = try TemporaryFolder()
        let outer = temp.folder("outer")
        try FileManager.default.createDirectory(at: outer, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        #expect(chmod(outer.path, 0o751) == 0)
        try AppDirectories.createFolder(outer.appendingPathComponent("inner"))
        #expect(permissionBits(outer) == 0o751)
        #expect(permissionBits(outer.appendingPathComponent("inner")) == 0o700)
        // Creating again is fine and changes nothing.
        #expect(chmod(outer.appendingPathComponent("inner").path, 0o750) == 0)
        try AppDirectories.createFolder(outer.appendingPathComponent("inner"))
        #expect(permissionBits(outer.appendingPathComponent("inner")) == 0o750)
    }

    @Test func rootedFoldersAreCreatedOnDemand() throws {
        let temp = try TemporaryFolder()
        let root = temp.folder("r/o/o/t")
        let dirs = AppDirectories(appName: "Cards", root: root)
        #expect(!FileManager.default.fileExists(atPath: dirs.preferences.path))
        #expect(try dirs.preferences(creating: false) == dirs.preferences)
        #expect(!FileManager.default.fileExists(atPath: dirs.preferences.path))
        _ = try dirs.preferences(creating: true)
        #expect(permissionBits(dirs.preferences) == 0o700)
        #expect(permissionBits(temp.folder("r")) == 0o700)
    }

    @Test func creatingUnderAFileFailsWithATypedError() throws {
        let temp = try TemporaryFolder()
        let file = temp.file("plain")
        try Data("x".utf8).write(to: file)
        #expect(throws: FileStorageError.self) { try AppDirectories.createFolder(file.appendingPathComponent("sub")) }
    }
}
