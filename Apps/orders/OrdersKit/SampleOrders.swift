import Foundation

/// Sample orders from a seed: the same seed gives the same orders.
public enum SampleOrders {
    static let statuses = ["pending", "processing", "on-hold", "completed", "cancelled", "refunded"]
    static let products = ["Beanie", "Hoodie", "T-Shirt", "Cap", "Belt", "Sunglasses", "Album", "Poster"]

    /// `count` orders numbered from 1, with one to four items each.
    public static func make(count: Int, seed: UInt64) -> [OrderRecord] {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            // SplitMix64: small, fast and the same on every platform.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let start = Date(timeIntervalSince1970: 1_767_225_600)   // 2026-01-01
        return (1...max(count, 1)).prefix(count).map { n in
            let items = (0..<Int(1 + next() % 4)).map { i in
                OrderRecord.ItemRecord(itemID: Int64(n) * 10 + Int64(i), name: products[Int(next() % UInt64(products.count))],
                                       quantity: Int(1 + next() % 3), price: Double(500 + next() % 4500) / 100)
            }
            let total = (items.reduce(0) { $0 + $1.price * Double($1.quantity) } * 100).rounded() / 100
            return OrderRecord(orderID: Int64(n), status: statuses[Int(next() % UInt64(statuses.count))],
                               dateCreated: start.addingTimeInterval(Double(n) * 3600 + Double(next() % 3600)),
                               total: total, customerNote: next() % 4 == 0 ? "Please gift-wrap order \(n)" : nil,
                               items: items)
        }
    }
}
