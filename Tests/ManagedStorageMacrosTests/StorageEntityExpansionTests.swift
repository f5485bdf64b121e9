import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct StorageEntityExpansionTests {
    /// A public entity's members are public; the transient, static and computed properties are not
    /// stored (no slot, no descriptor, no field of the copy).
    @Test func entityGetsAccessorsDescriptorsReadOnlyCopyAndUnavailableSendable() {
        expectExpansion(
            """
            @StorageEntity
            public final class Customer {
                public var name: String
                @Relationship(deleteRule: .deny)
                public var orders: [Order]
                @Relationship(deleteRule: .cascade, inverse: "customer")
                public var profile: CustomerProfile?
                @Transient var cache = 0
                static var shared = 1
                var computed: Int { 1 }
            }
            """,
            expandedSource: """
            public final class Customer {
                public var name: String {
                    get {
                        _$backing.get(0)
                    }
                    set {
                        _$backing.set(0, newValue)
                    }
                }
                public var orders: [Order] {
                    get {
                        _$backing.get(1)
                    }
                    set {
                        _$backing.set(1, newValue)
                    }
                }
                public var profile: CustomerProfile? {
                    get {
                        _$backing.get(2)
                    }
                    set {
                        _$backing.set(2, newValue)
                    }
                }
                var cache = 0
                static var shared = 1
                var computed: Int { 1 }

                public typealias ReadOnlyField = ManagedStorage.StorageObjectID

                public let _$backing: ManagedStorage.EntityBacking

                public init(_$backing: ManagedStorage.EntityBacking) {
                    self._$backing = _$backing
                }

                public static var entityName: String {
                    "Customer"
                }

                public static var _$properties: [ManagedStorage.StorageProperty<Customer>] {
                    [
                        .property("name", \\Customer.name),
                        .property("orders", \\Customer.orders, deleteRule: .deny),
                        .property("profile", \\Customer.profile, deleteRule: .cascade, inverse: \\CustomerProfile.customer)
                    ]
                }

                /// A `Sendable` copy of a `Customer`'s values: to-one relationships as object IDs,
                /// to-many relationships as the copies of their objects.
                public struct ReadOnly: Sendable, Equatable {
                    /// The object's permanent identifier.
                    public let objectID: ManagedStorage.StorageObjectID
                    public let name: ManagedStorage._ReadOnlyFieldOf<String>
                    public let orders: ManagedStorage._ReadOnlyFieldOf<[Order]>
                    public let profile: ManagedStorage._ReadOnlyFieldOf<CustomerProfile?>

                    public init(objectID: ManagedStorage.StorageObjectID, name: ManagedStorage._ReadOnlyFieldOf<String>, orders: ManagedStorage._ReadOnlyFieldOf<[Order]>, profile: ManagedStorage._ReadOnlyFieldOf<CustomerProfile?>) {
                        self.objectID = objectID
                        self.name = name
                        self.orders = orders
                        self.profile = profile
                    }
                }

                /// A `Sendable` copy of the object's values, to hand out of an operation.
                public func toReadOnly() -> ReadOnly {
                    ReadOnly(objectID: _$backing.permanentObjectID(), name: ManagedStorage._readOnlyValue(self.name), orders: ManagedStorage._readOnlyValue(self.orders), profile: ManagedStorage._readOnlyValue(self.profile))
                }
            }

            extension Customer: ManagedStorage.StorageEntity {
            }

            @available(*, unavailable, message: "an entity belongs to its storage; send toReadOnly() or objectID instead") extension Customer: @unchecked Sendable {
            }
            """)
    }

    /// `name:` names the table; an internal class gets internal members.
    @Test func tableNameFromTheArgument() {
        expectExpansion(
            """
            @StorageEntity(name: "orders_v2")
            final class Order {
                var orderID: Int64
            }
            """,
            expandedSource: """
            final class Order {
                var orderID: Int64 {
                    get {
                        _$backing.get(0)
                    }
                    set {
                        _$backing.set(0, newValue)
                    }
                }

                typealias ReadOnlyField = ManagedStorage.StorageObjectID

                let _$backing: ManagedStorage.EntityBacking

                init(_$backing: ManagedStorage.EntityBacking) {
                    self._$backing = _$backing
                }

                static var entityName: String {
                    "orders_v2"
                }

                static var _$properties: [ManagedStorage.StorageProperty<Order>] {
                    [
                        .property("orderID", \\Order.orderID)
                    ]
                }

                /// A `Sendable` copy of a `Order`'s values: to-one relationships as object IDs,
                /// to-many relationships as the copies of their objects.
                struct ReadOnly: Sendable, Equatable {
                    /// The object's permanent identifier.
                    let objectID: ManagedStorage.StorageObjectID
                    let orderID: ManagedStorage._ReadOnlyFieldOf<Int64>

                    init(objectID: ManagedStorage.StorageObjectID, orderID: ManagedStorage._ReadOnlyFieldOf<Int64>) {
                        self.objectID = objectID
                        self.orderID = orderID
                    }
                }

                /// A `Sendable` copy of the object's values, to hand out of an operation.
                func toReadOnly() -> ReadOnly {
                    ReadOnly(objectID: _$backing.permanentObjectID(), orderID: ManagedStorage._readOnlyValue(self.orderID))
                }
            }

            extension Order: ManagedStorage.StorageEntity {
            }

            @available(*, unavailable, message: "an entity belongs to its storage; send toReadOnly() or objectID instead") extension Order: @unchecked Sendable {
            }
            """)
    }

    /// `originalName:` on the entity, `@Attribute(originalName:default:)` and `@Relationship(originalName:)`
    /// reach the descriptors verbatim; an entity that was not renamed keeps the protocol's `nil`
    /// (no `originalEntityName`).
    @Test func migrationHintsReachTheDescriptors() {
        expectExpansion(
            """
            @StorageEntity(name: "Client", originalName: "Customer")
            final class Client {
                @Attribute(originalName: "name")
                var fullName: String
                @Attribute(default: 1)
                var priority: Int
                @Attribute(originalName: "state", default: OrderStatus.pending)
                var status: OrderStatus
                @Relationship(deleteRule: .cascade, originalName: "buyer")
                var owner: Person?
                var plain: String?
            }
            """,
            expandedSource: """
            final class Client {
                var fullName: String {
                    get {
                        _$backing.get(0)
                    }
                    set {
                        _$backing.set(0, newValue)
                    }
                }
                var priority: Int {
                    get {
                        _$backing.get(1)
                    }
                    set {
                        _$backing.set(1, newValue)
                    }
                }
                var status: OrderStatus {
                    get {
                        _$backing.get(2)
                    }
                    set {
                        _$backing.set(2, newValue)
                    }
                }
                var owner: Person? {
                    get {
                        _$backing.get(3)
                    }
                    set {
                        _$backing.set(3, newValue)
                    }
                }
                var plain: String? {
                    get {
                        _$backing.get(4)
                    }
                    set {
                        _$backing.set(4, newValue)
                    }
                }

                static var originalEntityName: String? {
                    "Customer"
                }

                typealias ReadOnlyField = ManagedStorage.StorageObjectID

                let _$backing: ManagedStorage.EntityBacking

                init(_$backing: ManagedStorage.EntityBacking) {
                    self._$backing = _$backing
                }

                static var entityName: String {
                    "Client"
                }

                static var _$properties: [ManagedStorage.StorageProperty<Client>] {
                    [
                        .property("fullName", \\Client.fullName, originalName: "name"),
                        .property("priority", \\Client.priority, default: 1),
                        .property("status", \\Client.status, originalName: "state", default: OrderStatus.pending),
                        .property("owner", \\Client.owner, deleteRule: .cascade, originalName: "buyer"),
                        .property("plain", \\Client.plain)
                    ]
                }

                /// A `Sendable` copy of a `Client`'s values: to-one relationships as object IDs,
                /// to-many relationships as the copies of their objects.
                struct ReadOnly: Sendable, Equatable {
                    /// The object's permanent identifier.
                    let objectID: ManagedStorage.StorageObjectID
                    let fullName: ManagedStorage._ReadOnlyFieldOf<String>
                    let priority: ManagedStorage._ReadOnlyFieldOf<Int>
                    let status: ManagedStorage._ReadOnlyFieldOf<OrderStatus>
                    let owner: ManagedStorage._ReadOnlyFieldOf<Person?>
                    let plain: ManagedStorage._ReadOnlyFieldOf<String?>

                    init(objectID: ManagedStorage.StorageObjectID, fullName: ManagedStorage._ReadOnlyFieldOf<String>, priority: ManagedStorage._ReadOnlyFieldOf<Int>, status: ManagedStorage._ReadOnlyFieldOf<OrderStatus>, owner: ManagedStorage._ReadOnlyFieldOf<Person?>, plain: ManagedStorage._ReadOnlyFieldOf<String?>) {
                        self.objectID = objectID
                        self.fullName = fullName
                        self.priority = priority
                        self.status = status
                        self.owner = owner
                        self.plain = plain
                    }
                }

                /// A `Sendable` copy of the object's values, to hand out of an operation.
                func toReadOnly() -> ReadOnly {
                    ReadOnly(objectID: _$backing.permanentObjectID(), fullName: ManagedStorage._readOnlyValue(self.fullName), priority: ManagedStorage._readOnlyValue(self.priority), status: ManagedStorage._readOnlyValue(self.status), owner: ManagedStorage._readOnlyValue(self.owner), plain: ManagedStorage._readOnlyValue(self.plain))
                }
            }

            extension Client: ManagedStorage.StorageEntity {
            }

            @available(*, unavailable, message: "an entity belongs to its storage; send toReadOnly() or objectID instead") extension Client: @unchecked Sendable {
            }
            """)
        expectExpansion(
            """
            @StorageEntity
            final class A {
                var x: Int
            }
            """,
            expandedSource: """
            final class A {
                var x: Int {
                    get {
                        _$backing.get(0)
                    }
                    set {
                        _$backing.set(0, newValue)
                    }
                }

                typealias ReadOnlyField = ManagedStorage.StorageObjectID

                let _$backing: ManagedStorage.EntityBacking

                init(_$backing: ManagedStorage.EntityBacking) {
                    self._$backing = _$backing
                }

                static var entityName: String {
                    "A"
                }

                static var _$properties: [ManagedStorage.StorageProperty<A>] {
                    [
                        .property("x", \\A.x)
                    ]
                }

                /// A `Sendable` copy of a `A`'s values: to-one relationships as object IDs,
                /// to-many relationships as the copies of their objects.
                struct ReadOnly: Sendable, Equatable {
                    /// The object's permanent identifier.
                    let objectID: ManagedStorage.StorageObjectID
                    let x: ManagedStorage._ReadOnlyFieldOf<Int>

                    init(objectID: ManagedStorage.StorageObjectID, x: ManagedStorage._ReadOnlyFieldOf<Int>) {
                        self.objectID = objectID
                        self.x = x
                    }
                }

                /// A `Sendable` copy of the object's values, to hand out of an operation.
                func toReadOnly() -> ReadOnly {
                    ReadOnly(objectID: _$backing.permanentObjectID(), x: ManagedStorage._readOnlyValue(self.x))
                }
            }

            extension A: ManagedStorage.StorageEntity {
            }

            @available(*, unavailable, message: "an entity belongs to its storage; send toReadOnly() or objectID instead") extension A: @unchecked Sendable {
            }
            """)
    }

    /// A class that is not final (with a fix-it), a struct, and each member that cannot be stored: a
    /// `let`, an initial value, observers, two names in one `var`. What can be stored still expands.
    @Test func whatCannotBeStoredIsDiagnosed() {
        expectExpansion(
            """
            @StorageEntity
            class Order {
                var orderID: Int64
            }
            """,
            expandedSource: """
            class Order {
                var orderID: Int64
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@StorageEntity requires a final class (entities are not subclassed; declare another entity instead)",
                                         line: 2, column: 1, fixIts: [FixItSpec(message: "make the class final")])],
            fixedSource: """
            @StorageEntity
            final class Order {
                var orderID: Int64
            }
            """)
        expectExpansion(
            """
            @StorageEntity
            struct Order {
                var orderID: Int64
            }
            """,
            expandedSource: """
            struct Order {
                var orderID: Int64
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@StorageEntity can only be applied to a class: an entity is an object its storage tracks",
                                         line: 1, column: 1)])
        expectExpansion(
            """
            @StorageEntity
            final class Order {
                let orderID: Int64
                var status: String = "pending"
                var total: Double { didSet { } }
                var a, b: Int
            }
            """,
            expandedSource: """
            final class Order {
                let orderID: Int64
                var status: String = "pending"
                var total: Double { didSet { } }
                var a, b: Int

                typealias ReadOnlyField = ManagedStorage.StorageObjectID

                let _$backing: ManagedStorage.EntityBacking

                init(_$backing: ManagedStorage.EntityBacking) {
                    self._$backing = _$backing
                }

                static var entityName: String {
                    "Order"
                }

                static var _$properties: [ManagedStorage.StorageProperty<Order>] {
                    [

                    ]
                }

                /// A `Sendable` copy of a `Order`'s values: to-one relationships as object IDs,
                /// to-many relationships as the copies of their objects.
                struct ReadOnly: Sendable, Equatable {
                    /// The object's permanent identifier.
                    let objectID: ManagedStorage.StorageObjectID


                    init(objectID: ManagedStorage.StorageObjectID) {
                        self.objectID = objectID
                    }
                }

                /// A `Sendable` copy of the object's values, to hand out of an operation.
                func toReadOnly() -> ReadOnly {
                    ReadOnly(objectID: _$backing.permanentObjectID())
                }
            }

            extension Order: ManagedStorage.StorageEntity {
            }

            @available(*, unavailable, message: "an entity belongs to its storage; send toReadOnly() or objectID instead") extension Order: @unchecked Sendable {
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "'let' properties are not stored; make it 'var', or mark it @Transient", line: 3, column: 5),
                DiagnosticSpec(message: "a stored property has no initial value (a new object starts at its type's default; set it after insertNewObject); remove it, or mark the property @Transient",
                               line: 4, column: 24),
                DiagnosticSpec(message: "a stored property cannot have 'willSet' or 'didSet'; mark it @Transient, or observe changes through the store",
                               line: 5, column: 5),
                DiagnosticSpec(message: "declare each stored property with its own 'var'", line: 6, column: 5),
            ])
    }
}
