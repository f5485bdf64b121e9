import StateGraph
import Testing

/// The declaration forms `@GraphStored` accepts besides `var name: T = value` in a class: no initial
/// value, implicitly unwrapped optionals, structs, and `@GraphIgnored` weak references beside them.
@Suite("declaration forms")
struct DeclarationFormTests {
    final class Account {
        @GraphStored var balance: Int
        @GraphStored var owner: String
        @GraphComputed var summary: String

        init(balance: Int, owner: String) {
            self.balance = balance
            self.owner = owner
            $summary = .init { [$balance, $owner] _ in "\($owner.wrappedValue): \($balance.wrappedValue)" }
        }
    }

    @Test("a class's property without a value: init assigns it, which makes the node")
    func withoutValue() {
        let account = Account(balance: 10, owner: "ann")
        #expect(account.summary == "ann: 10")
        #expect(account.$balance.name == "balance")
        account.balance += 5
        #expect(account.summary == "ann: 15")
    }

    final class ItemService {
        @GraphStored var items: [String] = []
    }

    final class ItemViewModel {
        @GraphStored var items: [String]
        @GraphComputed var count: Int

        init(service: ItemService) {
            // State sharing: this property reads and writes the service's node.
            $items = service.$items
            $count = .init { [$items] _ in $items.wrappedValue.count }
        }
    }

    @Test("state sharing: init assigns another object's node, and both see every write")
    func stateSharing() {
        let service = ItemService()
        let model = ItemViewModel(service: service)
        #expect(model.$items === service.$items)
        service.items = ["a"]
        #expect(model.items == ["a"])
        #expect(model.count == 1)
        model.items.append("b")
        #expect(service.items == ["a", "b"])
        #expect(model.count == 2)
    }

    final class Session {
        var history: [String] = []
        @GraphStored var token: String!
        @GraphStored var retries: Int! = 3 {
            willSet { history.append("will \(String(describing: newValue))") }
            didSet { history.append("did \(String(describing: oldValue))") }
        }
        init() {}
    }

    @Test("an implicitly unwrapped optional: an optional node, nil without a value, unwrapped where used as the value")
    func implicitlyUnwrapped() {
        let session = Session()
        let node: Stored<String?> = session.$token
        #expect(node.wrappedValue == nil)
        #expect(session.token == nil, "comparing with nil reads the optional, as Swift does for an IUO")
        session.token = "abc"
        let token: String = session.token
        #expect(token == "abc")
        #expect(session.token.count == 3)
        session.token = nil
        #expect(node.wrappedValue == nil)

        let retries: Int = session.retries
        #expect(retries == 3)
        session.retries = nil
        session.retries = 5
        #expect(session.history == ["will nil", "did Optional(3)", "will Optional(5)", "did nil"])
        #expect(session.$retries.wrappedValue == 5)
    }

    struct Point {
        @GraphStored var x: Int = 0
        @GraphStored var y: Int
        @GraphStored var label: String?
    }

    @Test("a struct's properties: the memberwise initializer takes them, values included, and a let copy can set them")
    func structMemberwise() {
        let origin = Point(y: 1)
        #expect(origin.x == 0)
        #expect(origin.y == 1)
        #expect(origin.label == nil)
        let point = Point(x: 5, y: 2, label: "p")
        #expect(point.x == 5)
        #expect(point.label == "p")
        let sum = Computed { [x = point.$x, y = point.$y] _ in x.wrappedValue + y.wrappedValue }
        #expect(sum.wrappedValue == 7)
        point.x = 10  // nonmutating: `point` is a let
        #expect(sum.wrappedValue == 12)
        let copy = point
        copy.y = 0
        #expect(point.y == 0, "a copy of the struct shares its nodes")
        #expect(sum.wrappedValue == 10)
    }

    final class Log {
        var lines: [String] = []
    }

    struct Counter {
        let log = Log()
        @GraphStored var count: Int = 0
        @GraphStored var step: Int = 1 {
            didSet { log.lines.append("step \(oldValue) -> \(step)") }
        }
        @GraphStored(backed: .memory) var name: String

        init(name: String) {
            self.name = name
        }

        init(count: Int, name: String) {
            self.count = count  // the node made with 0 is set, then used
            self.name = name
        }
    }

    @Test("a struct with its own initializers: a property left alone gets its value, one assigned gets what is assigned")
    func structInitializers() {
        let counter = Counter(name: "c")
        #expect(counter.count == 0)
        #expect(counter.step == 1)
        counter.step = 2
        #expect(counter.step == 2)
        #expect(counter.log.lines == ["step 1 -> 2"])
        let other = Counter(count: 4, name: "d")
        #expect(other.count == 4)
        #expect(other.name == "d")
        #expect(other.$count.name == "count")
    }

    struct Preferences {
        @GraphStored(backed: .userDefaults(key: "fontSize")) var fontSize: Int = 12
    }

    @Test("a struct's suite-backed property: S() works and the setter is nonmutating")
    func structBacked() throws {
        try withSuiteFolder { _ in
            let preferences = Preferences()
            #expect(preferences.fontSize == 12)
            preferences.fontSize = 14
            #expect(Preferences().fontSize == 14)
        }
    }

    final class Owner {}

    final class Child {
        @GraphIgnored weak var parent: Owner?
        @GraphIgnored unowned let root: Owner
        @GraphIgnored unowned(unsafe) var cached: Owner
        @GraphStored var name: String = "child"

        init(parent: Owner, root: Owner) {
            self.parent = parent
            self.root = root
            self.cached = root
        }
    }

    @Test("@GraphIgnored weak and unowned properties beside graph properties")
    func ignoredWeakAndUnowned() {
        let root = Owner()
        var parent: Owner? = Owner()
        let child = Child(parent: parent!, root: root)
        #expect(child.parent != nil)
        parent = nil
        #expect(child.parent == nil)
        #expect(child.root === root)
        #expect(child.name == "child")
    }

    actor Tally {
        @GraphStored var total: Int

        // Swift treats the init accessor as isolated to the actor, so a synchronous (nonisolated)
        // initializer cannot assign the property; an async one runs on the actor.
        init(total: Int) async {
            self.total = total
        }

        func add(_ amount: Int) -> Int {
            total += amount
            return total
        }
    }

    @Test("an actor's property without a value, assigned in an async initializer")
    func actorWithoutValue() async {
        let tally = await Tally(total: 1)
        #expect(await tally.add(2) == 3)
        #expect(tally.$total.wrappedValue == 3)
    }
}
