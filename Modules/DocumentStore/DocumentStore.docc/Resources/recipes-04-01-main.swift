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

// Queries run on the documents' JSON, for one kind.
let quick = try persistence.query(Recipe.self).where(Field("minutes") <= 20).sorted(by: "title").fetch()
print("ready in 20 minutes: \(quick.map(\.title))")
let vegetarian = try persistence.query(Recipe.self).where(Field("tags").contains("vegetarian")).count()
let inBasics = try persistence.query(Recipe.self).where(Field("cookbook") == basics.identifier)
    .sorted(by: "minutes", ascending: false).fetch()
print("\(vegetarian) vegetarian; in Basics, longest first: \(inBasics.map(\.title))")
print("cookbooks: \(try persistence.loadAllAtOnce(kind: Cookbook.self).map(\.name))")

// An index on a field of one kind; the query plan shows that the query uses it.
try persistence.createIndex(kind: Recipe.self, fields: ["minutes"])
let plan = try persistence.query(Recipe.self).where(Field("minutes") <= 20).explainQueryPlan()
print(plan.joined(separator: "\n"))

// A copy of the soup in the second Persistence, loaded before the change below.
let stale = try reopened.load(Recipe.self, soup.identifier)

// A change is a new revision.
let before = persistence.revision(of: soup)
soup.minutes = 40
try persistence.save(soup)
print("soup: \(before ?? "-") -> \(persistence.revision(of: soup) ?? "-")")

// The copy is stale now: saving it is a conflict, and writes nothing.
if let stale {
    stale.tags.append("winter")
    do {
        try reopened.save(stale)
    } catch DocumentStoreError.conflict(let conflict) {
        print("conflict on \(conflict.identifier): refresh and apply the change again")
        if let current = try reopened.refresh(stale) {
            current.tags.append("winter")
            try reopened.save(current)
            print("\(current.title): \(current.minutes) min, \(current.tags)")
        }
    }
}
