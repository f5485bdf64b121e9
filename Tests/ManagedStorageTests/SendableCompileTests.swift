import Foundation
import Testing
import TestSupport

/// An entity cannot leave `performAndSave`: the compiler refuses it, in Swift 6 mode as an error and in
/// Swift 5 mode as a warning (WooCommerce's debug assertion missed `[Order]`; this does not).
@Suite struct SendableCompileTests {
    /// The built modules, the macro plug-in and GRDB's SQLite module map, found from the test bundle's folder.
    struct Toolchain {
        let swiftc: URL
        let modules: URL
        let plugin: URL
        let sqliteModuleMap: URL

        init() throws {
            let build = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            modules = build.appendingPathComponent("Modules")
            plugin = build.appendingPathComponent("ManagedStorageMacros-tool")
            var root = build
            while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
                guard root.path != "/" else { throw ChildProcessError(description: "no Package.swift above \(build.path)") }
                root = root.deletingLastPathComponent()
            }
            sqliteModuleMap = root.appendingPathComponent(".build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap")
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
            guard let found = path.split(separator: ":").map({ URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw ChildProcessError(description: "swiftc is not on PATH")
            }
            swiftc = found
        }

        /// Type-checks `source` and returns the compiler's process (its exit status and diagnostics).
        func typecheck(_ source: String, swiftVersion: String) async throws -> ChildProcess {
            let folder = try TemporaryFolder(prefix: "sendable-check")
            let file = folder.file("Snippet.swift")
            try Data(source.utf8).write(to: file)
            let child = try ChildProcess.start(swiftc, [
                "-typecheck", "-swift-version", swiftVersion, "-I", modules.path,
                "-load-plugin-executable", "\(plugin.path)#ManagedStorageMacros",
                "-Xcc", "-fmodule-map-file=\(sqliteModuleMap.path)",
                "-module-cache-path", folder.folder("cache").path,
                file.path,
            ])
            _ = try await child.waitForExit(deadline: .now + .seconds(240))
            return child
        }
    }

    static func snippet(returning body: String, as type: String) -> String {
        """
        import Foundation
        import ManagedStorage

        @StorageEntity
        final class Order {
            var orderID: Int64
            var status: String
        }

        func port(_ storageManager: any StorageManagerType) {
            storageManager.performAndSave({ storage in
                let order = storage.insertNewObject(ofType: Order.self)
                order.orderID = 1
                return \(body)
            }, completion: { (result: Result<\(type), Error>) in
                _ = result
            }, on: .main)
        }
        """
    }

    @Test func returningAnEntityIsACompileErrorInSwift6() async throws {
        let toolchain = try Toolchain()
        for (body, type) in [("order", "Order"), ("[order]", "[Order]")] {
            let child = try await toolchain.typecheck(Self.snippet(returning: body, as: type), swiftVersion: "6")
            #expect(child.termination != .exited(0), "returning \(type) must not compile")
            #expect(child.standardError.contains("error:") && child.standardError.contains("Sendable"),
                    "\(type): \(child.standardError.prefix(2000))")
        }
    }

    @Test func returningAReadOnlyCopyCompiles() async throws {
        let toolchain = try Toolchain()
        let child = try await toolchain.typecheck(Self.snippet(returning: "order.toReadOnly()", as: "Order.ReadOnly"), swiftVersion: "6")
        #expect(child.termination == .exited(0), "\(child.standardError.prefix(2000))")
        #expect(!child.standardError.contains("error:"))
    }

    @Test func returningAnEntityIsAWarningInSwift5() async throws {
        let toolchain = try Toolchain()
        let child = try await toolchain.typecheck(Self.snippet(returning: "order", as: "Order"), swiftVersion: "5")
        #expect(child.termination == .exited(0), "\(child.standardError.prefix(2000))")
        #expect(child.standardError.contains("warning:") && child.standardError.contains("Sendable"),
                "\(child.standardError.prefix(2000))")
    }
}
