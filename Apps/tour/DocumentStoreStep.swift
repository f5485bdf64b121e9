import DocumentStore
import Foundation
import ShapesKit

/// The DocumentStore scenario: the Dali post's example end to end in the `shapes` app's store, and a
/// live query in another process seeing a save.
struct DocumentStoreStep: TourStep {
    var name: String { "DocumentStore" }
    var summary: String { "Dali's shapes as documents: a Venn diagram saved in one transaction, loaded lazily, queried, watched by another process" }

    /// The argument that makes the tour run the `shapes` command instead (the second process).
    static let childFlag = "--shapes-child"

    func run(_ context: TourContext) throws {
        let folder = context.folder.appendingPathComponent("store")
        let persistence = try ShapesStore.open(folder: folder)
        let square = Square(side: 3)
        let left = Circle(radius: 1)
        let right = Circle(radius: 2)
        let venn = VennDiagram(left: left, right: right)
        try persistence.save(square)
        try persistence.save(venn)
        let documents = try persistence.query(Shape.self).count() + persistence.query(VennDiagram.self).count()
        context.say("saved a square and a Venn diagram of two circles: \(documents) documents, the diagram and its circles in one transaction")
        try check(documents == 4, "expected 4 documents, found \(documents)")
        try check(persistence.load(VennDiagram.self, venn.identifier) === venn, "the identity map gave another instance")

        // A second Persistence on the same file has its own identity map: everything comes from the file.
        let other = try ShapesStore.open(folder: folder)
        let loaded = try other.load(VennDiagram.self, venn.identifier)
        try check(loaded != nil && loaded !== venn, "the diagram did not load from the file")
        try check(loaded?.left.isLoaded == false, "the circles were loaded before they were used")
        let radii = try [loaded?.left.get()?.radius, loaded?.right.get()?.radius]
        context.say("loaded the diagram in a second Persistence; its circles loaded lazily: radii \(radii.map { $0.map { "\($0)" } ?? "-" }.joined(separator: " and "))")
        try check(radii == [1, 2], "the lazily loaded circles differ")
        let shape = try other.load(Shape.self, square.identifier)
        context.say("loading a Shape gives the stored kind: \(shape.map { type(of: $0).kind } ?? "nothing"), area \(shape?.area ?? 0)")
        try check(shape is Square, "a Shape request did not build the stored Square")

        let big = try other.query(Circle.self).where(Field("radius") > 1).sorted(by: "area").fetch()
        context.say("query(Circle.self).where(Field(\"radius\") > 1).sorted(by: \"area\"): \(big.map(\.radius))")
        try check(big.map(\.radius) == [2], "the query found \(big.map(\.radius))")
        let revision = other.revision(of: loaded!) ?? "-"
        try other.save(loaded!)
        context.say("saving the loaded graph again writes nothing: revision still \(revision.prefix(12))…, feed at \(try other.lastSequence())")
        try check(other.revision(of: loaded!) == revision && other.lastSequence() == 4, "saving an unchanged graph wrote revisions")

        // Another process watches circles with radius > 2 while this one saves one.
        let watched = try watch(folder: folder, log: context.file("watch.txt")) {
            try persistence.save(Circle(radius: 5))
        }
        context.say("shapes watch --kind Circle --where \"radius > 2\" (another process), while this one saves a circle of radius 5:")
        for line in watched { context.say("    " + line) }
        try check(watched.contains { $0.contains("radius 5.000") }, "the watching process did not see the save")
    }

    /// Runs `shapes watch` in a second process, runs `change` once it watches, and returns its output.
    private func watch(folder: URL, log: URL, change: () throws -> Void) throws -> [String] {
        try runWatcher([Self.childFlag, "watch", "--store", folder.path, "--kind", "Circle", "--where", "radius > 2",
                        "--count", "1", "--seconds", "60"], log: log, readyPrefix: "watching", change: change)
    }
}
