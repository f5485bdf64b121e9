import ArgumentParser
import CommandSupport
import DocumentStore
import FileStorageKit
import Foundation

/// `shapes`: the Dali post's squares, circles and Venn diagrams, kept as JSON documents by DocumentStore.
///
/// ```sh
/// shapes add circle 2 --store /tmp/shapes        # prints the new identifier
/// shapes list --kind Circle --where "radius > 1" --sort area --store /tmp/shapes
/// ```
///
/// `Command/main.swift` runs it; the tour runs it as a second process and the tests in-process
/// (`ShapesCommand.run(arguments:streams:)`).
public struct ShapesCommand: ParsableCommand {
    /// The command's name, help and subcommands: `add`, `venn`, `list`, `show`, `watch`, `delete`.
    public static let configuration = CommandConfiguration(
        commandName: "shapes",
        abstract: "Keeps squares, circles and Venn diagrams as JSON documents in Shapes.sqlite (DocumentStore).",
        discussion: """
            Each change is one transaction, which other shapes processes see whole (a running `watch` \
            prints it). Exit status: 0 on success, 64 for bad arguments (an unknown kind, a --where it \
            cannot read), 1 for a missing document, a wrong kind or a store error, printed on standard \
            error as `shapes: <what>`.
            """,
        subcommands: [Add.self, Venn.self, List.self, Show.self, Watch.self, Delete.self, Sync.self])

    /// The command with no arguments parsed; `ShapesCommand.run(arguments:streams:)` parses and runs it.
    public init() {}
}

/// `--store PATH`, which every command takes.
struct StoreOption: ParsableArguments {
    @Option(name: .customLong("store"), help: ArgumentHelp(
        "The folder of Shapes.sqlite (default: the app's application-support folder).", valueName: "path"))
    var folder: String?

    /// The folder the store is in.
    var url: URL {
        folder.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? AppDirectories(appName: "shapes").applicationSupport
    }
}

/// A command that works on the store: `run(in:_:)` gets it open, and the errors it reports
/// (`DocumentStoreError`, `ShapesError`) become `shapes: <description>` and exit status 1.
protocol StoreCommand: StreamingCommand {
    var store: StoreOption { get }

    /// Does the command's work on the open store, writing to `streams`.
    func run(in persistence: Persistence, _ streams: CommandStreams) async throws
}

extension StoreCommand {
    func run(_ streams: CommandStreams) async throws {
        try await reportingStoreErrors {
            try await run(in: try ShapesStore.open(folder: store.url) { streams.printError("shapes: " + $0) }, streams)
        }
    }
}

/// Runs `body`, turning the errors of the store and of this app into `shapes: <description>` and
/// exit status 1.
func reportingStoreErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as DocumentStoreError {
        throw CommandFailure("\(error)")
    } catch let error as ShapesError {
        throw CommandFailure("\(error)")
    }
}

extension ShapeKind: ExpressibleByArgument {}

extension ShapesCommand {
    /// What `add` makes.
    enum NewShape: String, ExpressibleByArgument, CaseIterable {
        case square, circle
    }

    /// `shapes add square 3`, `shapes add circle 2`: prints the new identifier and nothing else.
    struct Add: StoreCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a square (by side) or a circle (by radius); prints its identifier.")

        @Argument(help: "square or circle.") var shape: NewShape
        @Argument(help: "The side or the radius (a positive number).") var size: Double
        @OptionGroup var store: StoreOption

        func validate() throws {
            guard size.isFinite, size > 0 else { throw ValidationError("the size must be a positive number, not \(size)") }
        }

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            let made: Shape = switch shape {
            case .square: Square(side: size)
            case .circle: Circle(radius: size)
            }
            try persistence.save(made)
            streams.print(made.identifier)
        }
    }

    /// `shapes venn ID ID`: a Venn diagram of two existing circles; prints its identifier.
    struct Venn: StoreCommand {
        static let configuration = CommandConfiguration(abstract: "Make a Venn diagram of two circles; prints its identifier.")

        @Argument(help: "The left circle's identifier.") var left: String
        @Argument(help: "The right circle's identifier.") var right: String
        @OptionGroup var store: StoreOption

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            let venn = VennDiagram(left: try circle(left, in: persistence), right: try circle(right, in: persistence))
            try persistence.save(venn)
            streams.print(venn.identifier)
        }

        /// The circle `identifier`, or ``ShapesError`` saying why there is none.
        func circle(_ identifier: String, in persistence: Persistence) throws -> Circle {
            guard let snapshot = try persistence.snapshot(identifier) else { throw ShapesError.noDocument(identifier: identifier) }
            guard snapshot.kind == Circle.kind else { throw ShapesError.notACircle(identifier: identifier, kind: snapshot.kind) }
            guard let circle = try persistence.load(Circle.self, identifier) else { throw ShapesError.noDocument(identifier: identifier) }
            return circle
        }
    }

    /// `shapes delete ID`: a deletion other processes see; says which Venn diagrams still name it.
    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a document (a tombstone other processes see).")

        @Argument(help: "The identifier.") var id: String
        @OptionGroup var store: StoreOption

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            guard let snapshot = try persistence.snapshot(id), let kind = ShapeKind(rawValue: snapshot.kind) else {
                throw ShapesError.noDocument(identifier: id)
            }
            try delete(kind.type, in: persistence)
            streams.print("deleted \(snapshot.kind) \(id)")
            // Relationships are plain identifiers, as in Dali: nothing stops a diagram from outliving its circle.
            let referring = try persistence.query(VennDiagram.self).where(Field("left") == id || Field("right") == id).identifiers()
            for venn in referring { streams.print("note: VennDiagram \(venn) still names it; showing that diagram will fail") }
        }

        private func delete<T: Persistable>(_ type: T.Type, in persistence: Persistence) throws {
            guard let object = try persistence.load(type, id) else { throw ShapesError.noDocument(identifier: id) }
            try persistence.delete(object)
        }
    }
}
