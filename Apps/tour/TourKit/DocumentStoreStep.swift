import DocumentStore
import Foundation
import ShapesKit

/// The DocumentStore scenario: the Dali post's example end to end in the `shapes` app's store, and a
/// live query in another process seeing a third process's save.
struct DocumentStoreStep: TourStep {
    var name: String { "DocumentStore" }
    var summary: String {
        "Dali's shapes as documents: a Venn diagram loaded lazily in a second Persistence, a query, a live query in another process"
    }

    /// The argument that makes the tour run the `shapes` command instead (the second process).
    static let childFlag = "--shapes-child"

    @MainActor func run(_ context: TourContext) async throws {
        let folder = context.folder.appendingPathComponent("store")
        let persistence = try ShapesStore.open(folder: folder)

        // The post's objects: a square, a circle, and a Venn diagram of that circle and a new one.
        let square = Square(side: 3)
        let left = Circle(radius: 1)
        try persistence.save(square)
        try persistence.save(left)
        let venn = VennDiagram(left: left, right: Circle(radius: 2))
        try persistence.save(venn)
        let documents = try persistence.query(Shape.self).count() + persistence.query(VennDiagram.self).count()
        context.say("saved a square, a circle, and a Venn diagram of it and a new circle (saved with the diagram): \(documents) documents")
        try check(documents == 4, "expected 4 documents, found \(documents)")
        try check(persistence.load(VennDiagram.self, venn.identifier) === venn, "the identity map gave another instance")

        // A second Persistence on the same file has its own identity map: everything comes from the file.
        let other = try ShapesStore.open(folder: folder)
        let loaded = try other.load(VennDiagram.self, venn.identifier)
        guard let loaded, loaded !== venn else { throw TourFailure("the diagram did not load from the file") }
        try check(!loaded.left.isLoaded && !loaded.right.isLoaded, "the circles were loaded with the diagram")
        try check(!other.isCached(identifier: left.identifier), "the left circle was read before it was used")
        let radii = try [loaded.left.get()?.radius, loaded.right.get()?.radius]
        context.say("a second Persistence loads the diagram; its circles load lazily on get(): radii "
                    + radii.map { $0.map(DocumentText.number) ?? "-" }.joined(separator: " and "))
        try check(radii == [1, 2] && loaded.left.isLoaded, "the lazily loaded circles differ: \(radii)")
        let shape = try other.load(Shape.self, square.identifier)
        context.say("loading a Shape builds the stored kind: \(shape.map { type(of: $0).kind } ?? "nothing") of area \(DocumentText.number(shape?.area ?? 0))")
        try check(shape is Square && shape?.area == 9, "a Shape request did not build the stored Square")

        // The typed query, and the same condition as the `shapes` command parses it from text.
        let big = try other.query(Circle.self).where(Field("radius") > 1).sorted(by: "area").fetch()
        context.say("query(Circle.self).where(Field(\"radius\") > 1).sorted(by: \"area\"): radii \(big.map { DocumentText.number($0.radius) }.joined(separator: ", "))")
        try check(big.map(\.radius) == [2], "the query found radii \(big.map(\.radius))")
        let parsed = try other.query(Circle.self).where(WhereClause.parse("radius > 1")).sorted(by: "area").identifiers()
        try check(parsed == big.map(\.identifier), "--where \"radius > 1\" found \(parsed)")

        let sequence = try other.lastSequence()
        let revision = other.revision(of: loaded) ?? "-"
        try other.save(loaded)
        context.say("saving the loaded diagram and circles again writes nothing: revision still \(revision.prefix(12))…, feed at \(sequence)")
        try check(other.revision(of: loaded) == revision && other.lastSequence() == sequence, "saving an unchanged graph wrote revisions")

        // Another process watches circles with radius > 2; a third adds one (`shapes add circle 5`).
        var added = ""
        let watched = try watch(context, folder: folder) {
            added = try runProcess(context.program, [Self.childFlag, "add", "circle", "5", "--store", folder.path])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        context.say("shapes watch --kind Circle --where \"radius > 2\" (another process), while a third runs shapes add circle 5 → \(added):")
        for line in watched { context.say("    " + line) }
        try check(watched.first == "watching: 0 documents", "the watcher's first result was not empty: \(watched)")
        let update = watched.drop { !$0.hasPrefix("update 1:") }
        try check(update.first == "update 1: 1 documents" && update.contains("  \(added)  Circle  radius 5  area 78.54"),
                  "the watching process did not print circle \(added): \(watched)")
        try check(try persistence.query(Circle.self).where(Field("radius") > 2).identifiers() == [added],
                  "this process does not see the added circle")
    }

    /// Runs `shapes watch` in a second process, runs `change` once it printed its first result, and
    /// returns its output.
    private func watch(_ context: TourContext, folder: URL, change: () throws -> Void) throws -> [String] {
        try runWatcher(context.program, [Self.childFlag, "watch", "--store", folder.path, "--kind", "Circle", "--where", "radius > 2",
                                         "--count", "1", "--seconds", "20"],
                       log: context.file("watch.txt"), readyPrefix: "watching", change: change)
    }
}
