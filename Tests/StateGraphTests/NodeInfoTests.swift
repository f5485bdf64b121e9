import Foundation
import StateGraph
import Testing

/// Names and locations of nodes, the `Node` protocol, and the Graphviz dump of `NodeStore`.
@Suite("node info")
struct NodeInfoTests {
    final class Cart: Sendable {
        @GraphStored var price: Int = 3
        @GraphStored var quantity: Int = 2
        @GraphComputed var total: Int

        init() {
            $total = .init(name: "total") { [$price, $quantity] _ in $price.wrappedValue * $quantity.wrappedValue }
        }
    }

    @Test("a node knows its name and the file, line and column where it was made")
    func nameAndLocation() {
        let line = UInt(#line + 1)
        let count = Stored(name: "count", wrappedValue: 1)
        #expect(count.info.name == "count")
        #expect("\(count.info.sourceLocation.file)" == "\(#fileID)")
        #expect(count.info.sourceLocation.line == line)
        #expect(count.info.sourceLocation.text.hasPrefix("\(#fileID):\(line):"))
        let doubled = count.map { _, value in value * 2 }
        #expect(doubled.info.sourceLocation.line == line + 5)
        let cart = Cart()
        // Macro-made nodes are named after their properties and located in this file.
        #expect(cart.$price.info.name == "price" && cart.$total.info.name == "total")
        #expect("\(cart.$price.info.sourceLocation.file)" == "\(#fileID)")
    }

    @Test("a suite-backed property can name its node: userDefaults(suite:key:name:)")
    func backingNamesNode() throws {
        try withSuiteFolder { _ in
            let node = StoredNode(name: "property", backing: .userDefaults(suite: "info", key: "k", name: "custom"), defaultValue: 5)
            #expect(node.info.name == "custom" && node.name == "custom")
            #expect(node.wrappedValue == 5)
        }
    }

    @Test("nodes are equal only to themselves, and generic code reads and maps any node")
    func nodeProtocol() async {
        let a = Stored(name: "a", wrappedValue: 1)
        let b = Stored(name: "b", wrappedValue: 1)
        #expect(a == a && a != b)
        #expect(Set([a, b, a]).count == 2)
        func label(_ node: some Node<Int>) -> Computed<String> { node.map { _, value in "#\(value)" } }
        let fromStored = label(a)
        let fromComputed = label(Computed { _ in b.wrappedValue + 10 })
        a.wrappedValue = 7
        #expect(fromStored.wrappedValue == "#7" && fromComputed.wrappedValue == "#11")
        let erased: [any TypeErasedNode] = [a, fromStored]
        #expect(erased.map(\.info.name) == ["a", "a"])
        func firstObserved(_ node: some Node<String>) async -> String? {
            var iterator = node.observe().makeAsyncIterator()
            return await iterator.next()
        }
        #expect(await firstObserved(fromComputed) == "#11")
    }

    @Test("graphViz lists the registered nodes and their edges, a stale dependent's edge dashed")
    func graphViz() async {
        await NodeStore.shared.enable()
        let cart = Cart()
        _ = cart.total
        let price = "\"price_\(cart.$price.info.sourceLocation.text)\""
        let quantity = "\"quantity_\(cart.$quantity.info.sourceLocation.text)\""
        let total = "\"total_\(cart.$total.info.sourceLocation.text)\""
        var lines = Set(await NodeStore.shared.graphViz().split(separator: "\n").map(String.init))
        // Other tests may be making nodes at the same time: only this graph's lines are checked.
        #expect(lines.isSuperset(of: ["digraph StateGraph {", price, quantity, total, "}",
                                      "\(price) -> \(total)", "\(quantity) -> \(total)"]))
        cart.price = 4
        lines = Set(await NodeStore.shared.graphViz().split(separator: "\n").map(String.init))
        #expect(lines.isSuperset(of: ["\(price) -> \(total) [style=dashed]", "\(quantity) -> \(total) [style=dashed]"]))
        #expect(await NodeStore.shared.nodes.contains { $0.name == "total" })
        await NodeStore.shared.disable()
        #expect(await !NodeStore.shared.nodes.contains { $0.name == "total" })
        withExtendedLifetime(cart) {}
    }
}
