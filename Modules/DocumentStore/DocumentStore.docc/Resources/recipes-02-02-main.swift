import DocumentStore
import Foundation

// The store is recipes-demo/Recipes.sqlite. The tutorial starts from an empty one at each run.
let folder = URL(fileURLWithPath: "recipes-demo", isDirectory: true)
try? FileManager.default.removeItem(at: folder)

/// Opens the store and registers the kinds it loads.
func openStore() throws -> Persistence {
    let persistence = try Persistence(url: folder.appendingPathComponent("Recipes.sqlite"))
    persistence.register(persistableKind: Cookbook.self)
    persistence.register(persistableKind: Recipe.self)
    return persistence
}

let persistence = try openStore()

// Saving a recipe saves its cookbook too, in the same transaction.
let basics = Cookbook(name: "Basics", author: "Ada")
let pancakes = Recipe(title: "Pancakes", minutes: 20, tags: ["sweet", "vegetarian"], in: basics)
try persistence.save(pancakes)
print("saved \(pancakes.title) at revision \(persistence.revision(of: pancakes) ?? "-")")

// Several saves in one transaction: all of them or none.
let soup = Recipe(title: "Lentil soup", minutes: 45, tags: ["vegetarian"], in: basics)
let omelette = Recipe(title: "Omelette", minutes: 10, tags: [], in: basics)
let toast = Recipe(title: "Toast", minutes: 5, tags: ["sweet"], in: nil)
try persistence.transaction { store in
    for recipe in [soup, omelette, toast] { try store.save(recipe) }
}

// In one Persistence, an identifier gives the same instance while anyone holds it.
let same = try persistence.load(Recipe.self, pancakes.identifier)
print("same instance: \(same === pancakes)")

// Another Persistence on the file has an identity map of its own: this load reads the file.
let reopened = try openStore()
if let loaded = try reopened.load(Recipe.self, pancakes.identifier) {
    print("\(loaded.title), \(loaded.minutes) min, from \(loaded.cookbook?.name ?? "no cookbook")")
}
