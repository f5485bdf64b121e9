import DocumentStore
import DocumentTestModel
import Foundation
import TestSupport

/// A store in a folder of its own, for one test.
struct TestStore {
    let folder: TemporaryFolder
    let persistence: Persistence

    init(_ prefix: String, configure: (inout PersistenceConfiguration) -> Void = { _ in }) throws {
        folder = try TemporaryFolder(prefix: prefix)
        var configuration = PersistenceConfiguration(url: folder.file("Store.sqlite"))
        configure(&configuration)
        persistence = try Persistence(configuration: configuration)
        persistence.register(persistableKind: Square.self)
        persistence.register(persistableKind: Circle.self)
    }

    var url: URL { persistence.url }

    /// Another `Persistence` on the same file (another identity map, as another process would have).
    func reopen() throws -> Persistence {
        let other = try Persistence(configuration: persistence.configuration)
        other.register(persistableKind: Square.self)
        other.register(persistableKind: Circle.self)
        return other
    }

    /// The number of rows in a table, read directly.
    func count(_ table: String) throws -> Int {
        try persistence.rawCount(table)
    }
}

/// The package root (for reading `../shared`).
enum PackagePaths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shared = root.deletingLastPathComponent().appendingPathComponent("shared")
}
