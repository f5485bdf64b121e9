import DocumentStore
import Foundation

/// Classes that save by reflection (no `save(to:)` of their own) and load through `PropertyReader`:
/// a three-level hierarchy with renamed and skipped properties, every supported value type, and
/// relationships.
enum Reflected {
    class Animal: Persistable {
        class var kind: String { "Animal" }
        /// The names stored under other keys; shared by the mapping and the reader.
        static let renamed: [String: String?] = ["name": "displayName"]

        let identifier: String
        let name: String
        var born: Date
        var tags: [String]
        var scores: [String: Double]
        var nickname: String?
        var weight: Float
        var legs: Int8
        var vaccinated: Bool
        var home: URL?
        var chip: UUID
        var extra: JSON
        var cachedSummary = "not stored"
        weak var friend: Animal?

        var propertyMapping: [String: String?] {
            var mapping = defaultPropertyMapping.merging(Self.renamed) { $1 }
            mapping.updateValue(nil, forKey: "cachedSummary")
            return mapping
        }

        init(identifier: String = UUID().uuidString, name: String) {
            self.identifier = identifier
            self.name = name
            born = Date(timeIntervalSince1970: 1_700_000_000.25)
            tags = ["a", "b"]
            scores = ["speed": 1.5, "size": 2]
            weight = 3.5
            legs = 4
            vaccinated = true
            home = URL(string: "https://example.com/home")
            chip = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            extra = ["nested": [1, "two", nil]]
        }

        required init?(with json: JSON, from persistence: Persistence) throws {
            let stored = PropertyReader(json, from: persistence, mapping: Animal.renamed)
            identifier = "replaced by the store"
            name = try stored.value("name")
            born = try stored.value("born")
            tags = try stored.value("tags")
            scores = try stored.value("scores")
            nickname = try stored.value("nickname")
            weight = try stored.value("weight")
            legs = try stored.value("legs")
            vaccinated = try stored.value("vaccinated")
            home = try stored.value("home")
            chip = try stored.value("chip")
            extra = try stored.value("extra")
            friend = try stored.object("friend")
        }
    }

    class Cat: Animal {
        override class var kind: String { "Cat" }
        var lives: Int
        /// Not stored: mapped to nil by the subclass's own mapping.
        var mood = "unknown"

        override var propertyMapping: [String: String?] {
            var mapping = super.propertyMapping
            mapping.updateValue(nil, forKey: "mood")
            return mapping
        }

        init(name: String, lives: Int) {
            self.lives = lives
            super.init(name: name)
        }

        required init?(with json: JSON, from persistence: Persistence) throws {
            lives = try PropertyReader(json, from: persistence).value("lives")
            try super.init(with: json, from: persistence)
        }
    }

    final class Kitten: Cat {
        override class var kind: String { "Kitten" }
        static let kittenRenamed: [String: String?] = ["toy": "favouriteToy"]
        var toy: String?
        var siblings: [Cat] = []
        var mother: Lazy<Cat>

        override var propertyMapping: [String: String?] { super.propertyMapping.merging(Self.kittenRenamed) { $1 } }

        init(name: String, toy: String?, mother: Cat?) {
            self.toy = toy
            self.mother = Lazy(mother)
            super.init(name: name, lives: 9)
        }

        required init?(with json: JSON, from persistence: Persistence) throws {
            let stored = PropertyReader(json, from: persistence, mapping: Self.kittenRenamed)
            toy = try stored.value("toy")
            siblings = try stored.objects("siblings")
            mother = try stored.lazy("mother")
            try super.init(with: json, from: persistence)
        }
    }

    /// A property of a type with no JSON form.
    final class WithSet: Persistable {
        static let kind = "WithSet"
        let identifier = UUID().uuidString
        var fine = 1
        var numbers: Set<Int> = [1, 2]
        init() {}
        init?(with json: JSON, from persistence: Persistence) throws { return nil }
    }

    /// A type with no JSON form deep inside a dictionary of arrays.
    final class WithNestedUnstorable: Persistable {
        static let kind = "WithNestedUnstorable"
        let identifier = UUID().uuidString
        var groups: [String: [Any]] = ["g": [1, "x", NSObject()]]
        init() {}
        init?(with json: JSON, from persistence: Persistence) throws { return nil }
    }

    /// Two properties saved under one key.
    final class Clash: Persistable {
        static let kind = "Clash"
        let identifier = UUID().uuidString
        var first = 1
        var second = 2
        var propertyMapping: [String: String?] { defaultPropertyMapping.merging(["second": "first"]) { $1 } }
        init() {}
        init?(with json: JSON, from persistence: Persistence) throws { return nil }
    }

    /// An identifier the store cannot set: computed from something else.
    final class ComputedIdentifier: Persistable {
        static let kind = "ComputedIdentifier"
        var key: String
        var identifier: String { "computed-" + key }
        var usesLoadingIdentifier: Bool
        init(key: String, usesLoadingIdentifier: Bool) {
            self.key = key
            self.usesLoadingIdentifier = usesLoadingIdentifier
        }
        init?(with json: JSON, from persistence: Persistence) throws {
            usesLoadingIdentifier = try PropertyReader(json, from: persistence).value("usesLoadingIdentifier")
            // The documented way: derive the backing value from the identifier being loaded.
            if usesLoadingIdentifier, let loading = Persistence.identifierBeingLoaded {
                key = String(loading.dropFirst("computed-".count))
            } else {
                key = "other"
            }
        }
    }
}
