import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// Queries against a brute-force filter (`QueryOracle`) over the same random documents, index use,
/// and live queries.
@Suite struct QueryTests {
    static let strings = ["apple", "Apple", "APPLE pie", "ápple", "Ápple", "banana", "b_nana", "b%nana", "100", "", "zebra", "äpfel", "Zoë"]

    static func scalar(_ rng: inout SeededGenerator) -> JSON {
        switch rng.int(in: 0...7) {
        case 0: .integer(Int64(rng.int(in: -50...50)))
        case 1: .double(Double(rng.int(in: -200...200)) / 4)
        case 2, 3: .string(rng.pick(strings))
        case 4: .bool(rng.chance(0.5))
        case 5: .null
        case 6: .integer(Int64(rng.int(in: 0...3)))
        default: .double(Double(rng.int(in: 0...3)))
        }
    }

    static func value(_ rng: inout SeededGenerator) -> JSON? {
        switch rng.int(in: 0...9) {
        case 0: nil
        case 1: .array((0..<rng.int(in: 0...3)).map { _ in scalar(&rng) })
        case 2: .object(["city": scalar(&rng), "zip": .integer(Int64(rng.int(in: 0...9)))])
        default: scalar(&rng)
        }
    }

    static func document(_ rng: inout SeededGenerator) -> JSON {
        var fields: [String: JSON] = [:]
        for key in ["n", "s", "flag", "tags", "address"] {
            if let v = value(&rng) { fields[key] = v }
        }
        if rng.chance(0.6) { fields["tags"] = .array((0..<rng.int(in: 0...4)).map { _ in scalar(&rng) }) }
        if rng.chance(0.5) { fields["address"] = .object(["city": .string(rng.pick(strings)), "zip": scalar(&rng)]) }
        return .object(fields)
    }

    static let fields: [Field] = ["n", "s", "flag", "tags", "address", "address.city", "address.zip", "tags[0]", "tags[1]", "missing"]
    static let patterns = ["a%", "%PLE%", "_pple", "b_nana", "b%", "1%", "%", "", "á%", "%.25", "-%", "%e", "A_P%"]

    static func predicate(_ rng: inout SeededGenerator, depth: Int = 0) -> DocumentPredicate {
        if depth < 2 && rng.chance(0.35) {
            let parts = (0..<rng.int(in: 1...3)).map { _ in predicate(&rng, depth: depth + 1) }
            switch rng.int(in: 0...2) {
            case 0: return .and(parts)
            case 1: return .or(parts)
            default: return .not(parts[0])
            }
        }
        let field = rng.pick(fields)
        switch rng.int(in: 0...9) {
        case 0: return .isIn(field, (0..<rng.int(in: 0...3)).map { _ in scalar(&rng) })
        case 1: return .like(field, rng.pick(patterns))
        case 2: return .contains(rng.chance(0.8) ? "tags" : field, scalar(&rng))
        case 3: return .exists(field)
        default:
            let ops: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
            return .comparison(field, rng.pick(ops), scalar(&rng))
        }
    }

    @Test func randomQueriesMatchABruteForceFilterFollowingSQLitesRules() throws {
        let seed = TestSeed.make()
        print("QueryTests: seed \(seed) (replay with \(TestSeed.variable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        let store = try TestStore("doc-query-oracle")
        var documents: [(id: String, body: JSON)] = []
        try store.persistence.transaction { p in
            for index in 0..<300 {
                let body = Self.document(&rng)
                let id = String(format: "doc-%03d", index)
                try p.save(Item(identifier: id, body: body))
                documents.append((id, body))
            }
        }
        for round in 0..<400 {
            let condition = rng.chance(0.95) ? Self.predicate(&rng) : nil
            let sort = (0..<rng.int(in: 0...2)).map { _ in (rng.pick(Self.fields), rng.chance(0.5)) }
            let limit = rng.chance(0.3) ? rng.int(in: 0...20) : nil
            let offset = limit != nil && rng.chance(0.5) ? rng.int(in: 0...10) : 0
            var query = store.persistence.query(Item.self)
            if let condition { query = query.where(condition) }
            for (field, ascending) in sort { query = query.sorted(by: field, ascending: ascending) }
            if let limit { query = query.limit(limit, offset: offset) }
            let expected = QueryOracle.run(documents, predicate: condition, sort: sort, limit: limit, offset: offset)
            let actual = try query.identifiers()
            if actual != expected {
                Issue.record("seed \(seed), round \(round): \(String(describing: condition)) sorted \(sort.map { "\($0.0) \($0.1)" }) limit \(String(describing: limit)) offset \(offset): got \(actual.count) \(actual.prefix(8)), expected \(expected.count) \(expected.prefix(8))")
                return
            }
            #expect(try query.count() == expected.count, "seed \(seed), round \(round)")
        }
    }

    @Test func theLikeAndTypeRulesOfTheOracleHoldOnKnownCases() throws {
        let store = try TestStore("doc-query-known")
        let bodies: [String: JSON] = [
            "a": ["s": "Apple", "n": 1], "b": ["s": "ápple", "n": 1.0], "c": ["s": "100", "n": "1"],
            "d": ["n": true], "e": ["n": nil], "f": [:], "g": ["n": 1.5, "tags": ["x", 2, true]],
        ]
        try store.persistence.transaction { p in
            for (id, body) in bodies { try p.save(Item(identifier: id, body: body)) }
        }
        func ids(_ predicate: DocumentPredicate) throws -> [String] { try store.persistence.query(Item.self).where(predicate).identifiers() }
        #expect(try ids(Field("s").like("apple")) == ["a"], "ASCII folds, á does not")
        #expect(try ids(Field("n") == 1) == ["a", "b", "d"], "1, 1.0 and true are all the integer 1")
        #expect(try ids(Field("n") > 1) == ["c", "g"], "text sorts after every number")
        #expect(try ids(!(Field("n") == 1)) == ["c", "g"], "NULL is neither equal nor unequal")
        #expect(try ids(Field("n").exists) == ["a", "b", "c", "d", "e", "g"], "null is present, missing is not")
        #expect(try ids(Field("tags").contains(true)) == ["g"] && ids(Field("tags").contains(1)) == ["g"])
        #expect(try ids(Field("s").like("1%")) == ["c"])
    }

    @Test func anIndexOnAJSONFieldIsUsedByThePlanner() throws {
        let store = try TestStore("doc-query-index")
        try store.persistence.transaction { p in
            for radius in 1...200 { try p.save(Circle(radius: Double(radius))) }
        }
        let query = store.persistence.query(Circle.self).where(Field("radius") > 150).sorted(by: "radius")
        let before = try query.explainQueryPlan().joined(separator: "; ")
        #expect(!before.contains("documents_Circle_radius"), "\(before)")
        let name = try store.persistence.createIndex(kind: Circle.self, fields: ["radius"])
        let plan = try query.explainQueryPlan().joined(separator: "; ")
        #expect(plan.contains("USING INDEX \(name)"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE FOR ORDER BY"), "the index gives the order (only the identifier tiebreak is sorted): \(plan)")
        #expect(try query.count() == 50 && query.fetch().first?.radius == 151)
        #expect(try store.persistence.createIndex(kind: Circle.self, fields: ["radius"]) == name, "creating it again is harmless")
        // A query over the whole hierarchy cannot use the Circle-only index, and still answers.
        #expect(try store.persistence.query(Shape.self).where(Field("radius") > 150).count() == 50)
    }

    @Test func fieldPathsThatSQLiteCannotNameAreATypedError() throws {
        let store = try TestStore("doc-query-paths")
        #expect(throws: DocumentStoreError.self) {
            _ = try store.persistence.query(Item.self).where(Field(components: [.key("a\"b")]) == 1).identifiers()
        }
        try store.persistence.save(Item(identifier: "q", body: ["it's": 1, "a.b": 2]))
        #expect(try store.persistence.query(Item.self).where(Field("it's") == 1).identifiers() == ["q"], "quotes are escaped")
        #expect(try store.persistence.query(Item.self).where(Field(components: [.key("a.b")]) == 2).identifiers() == ["q"])
    }

    @Test func aLiveQueryEmitsOnlyWhenItsResultsChange() async throws {
        let store = try TestStore("doc-live") { $0.otherProcessPollInterval = .milliseconds(10) }
        let big = store.persistence.query(Circle.self).where(Field("radius") > 1).sorted(by: "radius")
        var iterator = big.observe().makeAsyncIterator()
        #expect(try await iterator.next()?.count == 0)
        try store.persistence.save(Circle(radius: 0.5))          // outside the results: nothing emitted
        try store.persistence.save(Circle(radius: 2))
        let second = try await iterator.next()
        #expect(second?.map { $0.body["radius"] } == [2.0], "the small circle never caused an emission")
        // Another connection (as another process would) saves: seen through data_version polling.
        try store.reopen().save(Circle(radius: 3))
        let third = try await iterator.next()
        #expect(third?.map { $0.body["radius"] } == [2.0, 3.0])
    }
}
