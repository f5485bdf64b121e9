import ArgumentParser
import CommandSupport
import DocumentStore
import Foundation

/// The query options `list` and `watch` share: a kind, a condition, an order and a limit.
struct QueryOptions: ParsableArguments {
    @Option(help: "Shape (squares and circles), Square, Circle or VennDiagram.") var kind: ShapeKind = .shape
    @Option(name: .customLong("where"), help: ArgumentHelp(
        "A condition FIELD OP VALUE, OP one of = != < <= > >= like: \"radius > 1\", \"area <= 10\".", valueName: "condition"))
    var condition: String?
    @Option(help: ArgumentHelp("Sort by this field (then by identifier).", valueName: "field")) var sort: String?
    @Flag(help: "Sort in descending order.") var descending = false
    @Option(help: "At most this many documents.") var limit: Int?

    func validate() throws {
        _ = try predicate()
        if let sort, let problem = WhereClause.fieldProblem(sort) {
            throw ValidationError("--sort \(sort): not a field path: \(problem)")
        }
        if let limit, limit < 0 { throw ValidationError("--limit cannot be negative") }
    }

    /// The parsed `--where`, `nil` without one.
    ///
    /// - Throws: `ValidationError` (exit status 64) with what is wrong with the condition.
    func predicate() throws -> DocumentPredicate? {
        guard let condition else { return nil }
        do {
            return try WhereClause.parse(condition)
        } catch {
            throw ValidationError("--where: \(error)")
        }
    }

    /// The matching documents now.
    func snapshots(in persistence: Persistence) throws -> [DocumentSnapshot] {
        let predicate = try predicate()
        func run<T: Persistable>(_ type: T.Type) throws -> [DocumentSnapshot] {
            try query(persistence.query(type), predicate).snapshots()
        }
        return try run(kind.type)
    }

    /// The matching documents now, and again each time a commit (in any process) changes them.
    func observe(in persistence: Persistence) throws -> AsyncThrowingStream<[DocumentSnapshot], Error> {
        let predicate = try predicate()
        func run<T: Persistable>(_ type: T.Type) -> AsyncThrowingStream<[DocumentSnapshot], Error> {
            query(persistence.query(type), predicate).observe()
        }
        return run(kind.type)
    }

    private func query<T>(_ base: DocumentQuery<T>, _ predicate: DocumentPredicate?) -> DocumentQuery<T> {
        var query = base
        if let predicate { query = query.where(predicate) }
        if let sort { query = query.sorted(by: Field(sort), ascending: !descending) }
        if let limit { query = query.limit(limit) }
        return query
    }
}

extension ShapesCommand {
    /// `shapes list --kind Circle --where "radius > 1" --sort area`: one line per document.
    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            abstract: "List documents, one line each: identifier, kind, fields.",
            discussion: "The condition's value is bound as a query parameter; shapes store their area, so it can be used too.")

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOption

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            for snapshot in try query.snapshots(in: persistence) { streams.print(DocumentText.line(snapshot)) }
        }
    }

    /// `shapes show ID`: one document, and a Venn diagram's circles loaded lazily.
    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a document: kind, revision, fields; a Venn diagram loads its circles lazily.")

        @Argument(help: "The identifier.") var id: String
        @OptionGroup var store: StoreOption

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            guard let snapshot = try persistence.snapshot(id) else { throw ShapesError.noDocument(identifier: id) }
            streams.print("\(snapshot.kind) \(id)")
            streams.print("  revision \(snapshot.revision)")
            for field in DocumentText.fields(snapshot.body) { streams.print("  \(field.name) \(field.value)") }
            guard snapshot.kind == VennDiagram.kind else { return }

            guard let venn = try persistence.load(VennDiagram.self, id) else { throw ShapesError.noDocument(identifier: id) }
            for (side, circle) in [("left", venn.left), ("right", venn.right)] {
                streams.print("loading \(side) circle \(circle.identifier ?? "(none)") lazily")
                guard let loaded = try circle.get() else { continue }
                streams.print("  \(side): radius \(DocumentText.number(loaded.radius))  area \(DocumentText.number(loaded.area))")
            }
        }
    }
}
