import Foundation
@testable import ManagedStorage
import Testing
import TestSupport

/// The identity map's open-addressed table against a `Dictionary`, through inserts (looked up, and
/// appended unlooked as a fetch into an empty registry does), replacements, removals and lookups of dense, sparse, negative and colliding row ids, past many resizes.
@Suite struct RowRegistryTests {
    final class Box {}

    @Test func itAgreesWithADictionaryThroughRandomOperations() {
        let seed = TestSeed.make()
        print("RowRegistryTests seed: \(seed) (replay with \(TestSeed.variable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        let objects = (0..<64).map { _ in Box() }
        for round in 0..<20 {
            let registry = RowRegistry()
            var model: [Int64: Int] = [:]
            // Dense ids, sparse ids, ids that share their low bits, and the extremes next to the table's markers.
            let pool: [Int64] = switch round % 4 {
            case 0: (1...3000).map { Int64($0) }
            case 1: (0..<3000).map { _ in Int64.random(in: 1...Int64.max, using: &rng) }
            case 2: (0..<3000).map { Int64($0) << 32 }
            default: [Int64.max, Int64.min, Int64.min + 1, Int64.min + 2, -1, 0, 1] + (0..<500).map { _ in Int64.random(in: -1000...1000, using: &rng) }
            }
            for step in 0..<20_000 {
                let rowID = pool.randomElement(using: &rng)!
                switch Int.random(in: 0..<12, using: &rng) {
                case 10, 11:
                    // A row known not to be registered: added without a lookup, put in the table at the next one.
                    guard model[rowID] == nil else { break }
                    let object = Int.random(in: 0..<objects.count, using: &rng)
                    registry.appendNew(rowID, .kept(Unmanaged.passUnretained(objects[object])))
                    model[rowID] = object
                    #expect(registry.count == model.count, "seed \(seed) round \(round) step \(step)")
                    continue
                case 0..<5:
                    let object = Int.random(in: 0..<objects.count, using: &rng)
                    registry[rowID] = .kept(Unmanaged.passUnretained(objects[object]))
                    model[rowID] = object
                case 5..<8:
                    registry[rowID] = nil
                    model[rowID] = nil
                default:
                    break
                }
                let found = registry[rowID]?.object
                let expected = model[rowID].map { objects[$0] }
                #expect(found === expected, "seed \(seed) round \(round) step \(step) row \(rowID)")
                if found !== expected { return }
            }
            #expect(registry.count == model.count, "seed \(seed) round \(round)")
            for (rowID, object) in model {
                #expect(registry[rowID]?.object === objects[object], "seed \(seed) round \(round) row \(rowID)")
            }
        }
    }
}
