import ArgumentParser
import DocumentStore
import Foundation

/// `shapes`: Dali's shapes kept as documents by DocumentStore.
public struct ShapesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shapes",
        abstract: "Keeps squares, circles and Venn diagrams as JSON documents in Shapes.sqlite (DocumentStore).",
        discussion: """
            Each command is one transaction. Exit status: 0 on success, 64 for bad arguments, 1 for a \
            document that does not exist or a store error.
            """,
        subcommands: [Add.self, Venn.self, List.self, Show.self, Watch.self, Delete.self])

    public init() {}
}

/// `--store PATH`, shared by every command.
struct StoreOption: ParsableArguments {
    @Option(name: .customLong("store"), help: "The folder of Shapes.sqlite (default: the app's application-support folder).")
    var folder: String?

    func open() throws -> Persistence {
        let url = folder.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ShapesStore.defaultFolder
        return try reporting { try ShapesStore.open(folder: url) }
    }
}

/// Prints `shapes: message` on standard error and returns exit status 1.
func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("shapes: \(message)\n".utf8))
    return ExitCode(1)
}

/// Runs `body`, turning a store error into exit status 1 with its description.
func reporting<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as DocumentStoreError {
        throw failure("\(error)")
    }
}

/// One line for a document: `<id>  <kind>  field value ...`.
func line(_ snapshot: DocumentSnapshot) -> String {
    let fields = (snapshot.body.objectValue ?? [:]).sorted { $0.key < $1.key }.map { key, value in
        if case .double(let number) = value { return "\(key) \(String(format: "%.3f", number))" }
        if case .string(let text) = value { return "\(key) \(text)" }
        return "\(key) \(value)"
    }
    return ([snapshot.identifier, snapshot.kind] + fields).joined(separator: "  ")
}

/// The query options shared by `list` and `watch`.
struct QueryOptions: ParsableArguments {
    @Option(help: "Shape, Square, Circle or VennDiagram (Shape includes squares and circles).") var kind = "Shape"
    @Option(name: .customLong("where"), help: "A condition: FIELD OP VALUE, e.g. \"radius > 1\".") var condition: String?
    @Option(help: "Sort by this field.") var sort: String?
    @Flag(help: "Sort in descending order.") var descending = false
    @Option(help: "At most this many documents.") var limit: Int?

    func validate() throws {
        guard ["Shape", "Square", "Circle", "VennDiagram"].contains(kind) else {
            throw ValidationError("unknown kind \(kind): use Shape, Square, Circle or VennDiagram")
        }
        if let condition {
            do { _ = try WhereClause.parse(condition) } catch { throw ValidationError(error.description) }
        }
    }

    /// The query's compiled form, for this kind.
    func snapshots(_ persistence: Persistence) throws -> [DocumentSnapshot] {
        switch kind {
        case "Square": try query(persistence.query(Square.self)).snapshots()
        case "Circle": try query(persistence.query(Circle.self)).snapshots()
        case "VennDiagram": try query(persistence.query(VennDiagram.self)).snapshots()
        default: try query(persistence.query(Shape.self)).snapshots()
        }
    }

    func observe(_ persistence: Persistence) -> AsyncThrowingStream<[DocumentSnapshot], Error> {
        switch kind {
        case "Square": query(persistence.query(Square.self)).observe()
        case "Circle": query(persistence.query(Circle.self)).observe()
        case "VennDiagram": query(persistence.query(VennDiagram.self)).observe()
        default: query(persistence.query(Shape.self)).observe()
        }
    }

    private func query<T>(_ base: DocumentQuery<T>) -> DocumentQuery<T> {
        var query = base
        if let condition, let predicate = try? WhereClause.parse(condition) { query = query.where(predicate) }
        if let sort { query = query.sorted(by: Field(sort), ascending: !descending) }
        if let limit { query = query.limit(limit) }
        return query
    }
}

extension ShapesCommand {
    /// `shapes add square 3`, `shapes add circle 2`: prints the new identifier.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a square (by side) or a circle (by radius); prints its identifier.")

        @Argument(help: "square or circle.") var shape: String
        @Argument(help: "The side or the radius.") var size: Double
        @OptionGroup var store: StoreOption

        func validate() throws {
            guard ["square", "circle"].contains(shape) else { throw ValidationError("shape must be square or circle, not \(shape)") }
            guard size.isFinite, size > 0 else { throw ValidationError("the size must be a positive number") }
        }

        func run() throws {
            let persistence = try store.open()
            let made: Shape = shape == "square" ? Square(side: size) : Circle(radius: size)
            try reporting { try persistence.save(made) }
            print(made.identifier)
        }
    }

    /// `shapes venn ID ID`: a Venn diagram of two existing circles.
    struct Venn: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a Venn diagram of two circles; prints its identifier.")

        @Argument(help: "The left circle's identifier.") var left: String
        @Argument(help: "The right circle's identifier.") var right: String
        @OptionGroup var store: StoreOption

        func run() throws {
            let persistence = try store.open()
            let circles = try [left, right].map { id in
                guard let circle: Circle = try reporting({ try persistence.load(id) }) else { throw failure("no circle \(id)") }
                return circle
            }
            let venn = VennDiagram(left: circles[0], right: circles[1])
            try reporting { try persistence.save(venn) }
            print(venn.identifier)
        }
    }

    /// `shapes list --kind Circle --where "radius > 1" --sort area`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List documents, one per line.")

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOption

        func run() throws {
            let persistence = try store.open()
            for snapshot in try reporting({ try query.snapshots(persistence) }) { print(line(snapshot)) }
        }
    }

    /// `shapes show ID`: one document, and a Venn diagram's circles loaded lazily.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a document; a Venn diagram loads its circles lazily.")

        @Argument(help: "The identifier.") var id: String
        @OptionGroup var store: StoreOption

        func run() throws {
            let persistence = try store.open()
            guard let snapshot = try reporting({ try persistence.snapshot(id) }) else { throw failure("no document \(id)") }
            print(line(snapshot))
            print("revision \(snapshot.revision)")
            guard snapshot.kind == VennDiagram.kind else { return }
            try reporting {
                guard let venn: VennDiagram = try persistence.load(id) else { throw failure("no document \(id)") }
                for (side, lazy) in [("left", venn.left), ("right", venn.right)] {
                    print("loading \(side) circle \(lazy.identifier ?? "-") lazily (loaded before: \(lazy.isLoaded))")
                    if let circle = try lazy.get() {
                        print("  \(side): radius \(circle.radius), area \(String(format: "%.3f", circle.area))")
                    }
                }
            }
        }
    }

    /// `shapes delete ID`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a document (a tombstone other processes see).")

        @Argument(help: "The identifier.") var id: String
        @OptionGroup var store: StoreOption

        func run() throws {
            let persistence = try store.open()
            try reporting {
                if let venn: VennDiagram = try? persistence.load(id) {
                    try persistence.delete(venn)
                } else if let shape: Shape = try persistence.load(id) {
                    try persistence.delete(shape)
                } else {
                    throw failure("no document \(id)")
                }
            }
            print("deleted \(id)")
        }
    }
}
