@testable import ManagedStorage
import ManagedTestModel
import Testing

/// A resolved model links its entities both ways (a relationship's target, the target's incoming
/// references); those links must not keep the model alive once its store lets go of it (found by
/// ci/sanitize's LeakSanitizer: every `orders` run leaked its model's schemas).
struct ModelLifetimeTests {
    @Test func aResolvedModelWithInverseRelationshipsIsFreedWithItsLastOwner() throws {
        var schemas: [Weak] = []
        do {
            let model = try testModel.resolve()
            // The links this test is about are there: Order.items → OrderItem and back.
            let order = try #require(model.byName["Order"]), item = try #require(model.byName["OrderItem"])
            #expect(order.properties.contains { $0.target === item })
            #expect(order.incoming.contains { $0.entity === item })
            schemas = model.entities.map { Weak($0) }
        }
        #expect(schemas.count == 6)
        let alive = schemas.compactMap { ($0.object as? EntitySchema)?.name }
        #expect(alive.isEmpty, "schemas still alive after their model: \(alive)")
    }

    @Test func linkingThatFailsHalfwayUnlinksWhatItLinked() throws {
        // OrderItem → Order and Order.items → OrderItem are linked before Order.customer, whose
        // entity is not in the model, throws.
        var schemas: [Weak] = []
        var caught: StorageError?
        do {
            let entities = [EntitySchema(OrderItem.self), EntitySchema(OrderNote.self), EntitySchema(Order.self)]
            schemas = entities.map { Weak($0) }
            do {
                try ResolvedModel.link(entities, byName: Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) }))
            } catch {
                caught = error
            }
            #expect(entities.allSatisfy { $0.incoming.isEmpty && $0.properties.allSatisfy { $0.target == nil } })
        }
        let message = try #require(caught.map { "\($0)" })
        #expect(message.contains("Customer"), "\(message)")
        #expect(schemas.allSatisfy { $0.object == nil })
    }

    @Test func aOneToOnePairSetInAnOperationIsFreedWhenItEnds() async throws {
        let store = try TestStore()
        let watched = try await store.perform { storage -> [Weak] in
            let ada = storage.insertNewObject(ofType: Customer.self)
            ada.name = "Ada"
            let profile = storage.insertNewObject(ofType: CustomerProfile.self)
            profile.bio = "mathematician"
            ada.profile = profile
            // Both ends now cache each other's backing.
            #expect(profile.customer === ada && ada.profile === profile)
            return [Weak(ada._$backing), Weak(profile._$backing), Weak(ada), Weak(profile)]
        }.get()
        #expect(watched.allSatisfy { $0.object == nil }, "alive after the operation: \(watched.map { $0.object == nil })")
        // What was saved is whole.
        let bio = try store.manager.read { storage in
            storage.firstObject(ofType: Customer.self)?.profile?.bio
        }
        #expect(bio == "mathematician")
    }

    @Test func aOneToOnePairDeletedInAnOperationIsFreedWhenItEnds() async throws {
        let store = try TestStore()
        let watched = try await store.perform { storage -> [Weak] in
            let ada = storage.insertNewObject(ofType: Customer.self)
            ada.name = "Ada"
            let profile = storage.insertNewObject(ofType: CustomerProfile.self)
            ada.profile = profile
            storage.saveIfNeeded()
            #expect(profile.customer === ada)
            // The cascade deletes the profile too; both leave the storage's lists when saved.
            storage.deleteObject(ada)
            storage.saveIfNeeded()
            return [Weak(ada._$backing), Weak(profile._$backing)]
        }.get()
        #expect(watched.allSatisfy { $0.object == nil }, "alive after the operation: \(watched.map { $0.object == nil })")
        let left = try store.manager.read { $0.countObjects(ofType: CustomerProfile.self) }
        #expect(left == 0)
    }
}

/// A weak reference, to watch an object's lifetime.
private final class Weak: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
