import StateGraph
import Testing

/// `willSet` and `didSet` on `@GraphStored` properties, run around the node's write.
@Suite("stored property observers")
struct StoredObserverTests {
    final class Counter {
        var history: [String] = []
        @GraphStored var count: Int = 0 {
            willSet { history.append("will \(count) -> \(newValue)") }
            didSet { history.append("did \(oldValue) -> \(count)") }
        }
        @GraphStored var named: String = "a" {
            willSet(next) { history.append("next \(next)") }
            didSet(previous) { history.append("previous \(previous)") }
        }
        @GraphStored var onlyDid: Int = 0 {
            didSet { history.append("only \(oldValue)") }
        }
        init() {}
    }

    @Test("willSet runs before the write with the new value, didSet after it with the old one, on every assignment")
    func observers() {
        let model = Counter()
        let node = model.$count
        let doubled = Computed { _ in node.wrappedValue * 2 }
        model.count = 1
        model.count = 1
        model.named = "b"
        model.onlyDid = 5
        #expect(model.history == ["will 0 -> 1", "did 0 -> 1", "will 1 -> 1", "did 1 -> 1", "next b", "previous a", "only 0"])
        #expect(doubled.wrappedValue == 2)
        model.$count.wrappedValue = 7
        #expect(model.history.count == 7, "a write through the node itself runs no property observer")
    }
}

/// A top-level graph property (swift-state-graph accepts one).
@GraphStored var topLevelCount: Int = 1

/// `@GraphStored` on static and top-level properties.
@Suite("stored declaration forms")
struct StoredDeclarationFormTests {
    enum Settings {
        @GraphStored static var volume: Int = 3
    }

    @Test("a static and a top-level property are nodes")
    func forms() {
        let volume = Settings.$volume
        let louder = Computed { _ in volume.wrappedValue + 1 }
        Settings.volume = 7
        #expect(louder.wrappedValue == 8)
        let top = $topLevelCount
        let doubled = Computed { _ in top.wrappedValue * 2 }
        topLevelCount = 21
        #expect(doubled.wrappedValue == 42)
    }
}
