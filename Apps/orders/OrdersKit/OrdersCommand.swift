import ArgumentParser
import FileStorageKit
import Foundation
import ManagedStorage
#if canImport(Glibc)
import Glibc
#endif

/// `orders`: WooCommerce-style orders in a SQLite store, through ManagedStorage.
public struct OrdersCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Keeps orders and their items in Orders.sqlite (ManagedStorage, on SQLite).",
        discussion: """
            Every change is one transaction: another orders process sees it whole or not at all, and a \
            killed process loses nothing it reported done. Exit status: 0 on success, 64 for bad \
            arguments, 1 for an order that does not exist or a store error.
            """,
        subcommands: [Generate.self, Import.self, List.self, SetStatus.self, Delete.self, Watch.self])

    public init() {}
}

/// `--folder PATH`, shared by the commands that open the store.
struct StoreOptions: ParsableArguments {
    @Option(help: "The folder of Orders.sqlite (default: the program's application-support folder).")
    var folder: String?

    func open() throws -> SQLiteStorageManager {
        let url = folder.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? AppDirectories(appName: "orders").applicationSupport
        do {
            return try OrdersStore.open(folder: url)
        } catch {
            throw failure("\(error)")
        }
    }
}

/// Prints `message` on standard error and exits with status 1.
func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("orders: \(message)\n".utf8))
    return ExitCode(1)
}

/// Runs `body`, turning a store error into exit status 1 with its description.
func reportingStoreErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StorageError {
        throw failure("\(error)")
    }
}

extension OrdersCommand {
    /// `orders generate N`: sample orders as JSON on standard output.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print N sample orders with items as JSON.")

        @Argument(help: "How many orders.") var count: Int
        @Option(help: "The seed; the same seed gives the same orders.") var seed: UInt64 = 1

        func validate() throws {
            guard count >= 0 else { throw ValidationError("the count cannot be negative") }
        }

        func run() throws {
            let data = try OrderRecord.encoder().encode(SampleOrders.make(count: count, seed: seed))
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }

    /// `orders import FILE.json`.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import orders from JSON (as `generate` writes it); existing order numbers are updated.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The JSON file.") var file: String

        func run() throws {
            let records: [OrderRecord]
            do {
                records = try OrderRecord.decoder().decode([OrderRecord].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                throw ValidationError("\(file) is not a list of orders: \(error)")
            }
            let manager = try store.open()
            let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
            let started = ContinuousClock.now
            let summary = try reportingStoreErrors {
                try OrderImport.run(records, into: manager) { done, total in bar.show(done, of: total) }
            }
            bar.finish()
            let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - started).components.seconds)
            print("imported \(records.count) orders (\(summary.inserted) new, \(summary.updated) updated) in \(String(format: "%.2f", seconds)) s")
        }
    }

    /// `orders list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List orders, optionally of one status.")

        enum SortKey: String, ExpressibleByArgument, CaseIterable {
            case id, date, total
        }

        @OptionGroup var store: StoreOptions
        @Option(help: "Only orders with this status (pending, processing, on-hold, completed, cancelled, refunded).")
        var status: String?
        @Option(help: "Sort by id, date or total.") var sort: SortKey = .id
        @Flag(help: "Newest, largest or highest first.") var descending = false
        @Option(help: "Show at most this many.") var limit: Int?

        func run() throws {
            let manager = try store.open()
            let lines = try reportingStoreErrors {
                try manager.read { storage -> [String] in
                    let predicate: Predicate<Order>? = status.map { wanted in #Predicate { $0.status == wanted } }
                    let order: SortOrder = descending ? .reverse : .forward
                    let sort: SortDescriptor<Order> = switch self.sort {
                    case .id: SortDescriptor(\.orderID, order: order)
                    case .date: SortDescriptor(\.dateCreated, order: order)
                    case .total: SortDescriptor(\.total, order: order)
                    }
                    var orders = storage.allObjects(ofType: Order.self, matching: predicate, sortedBy: [sort])
                    if let limit { orders = Array(orders.prefix(max(0, limit))) }
                    return orders.map { Self.line($0) }
                }
            }
            if lines.isEmpty { print(status.map { "no \($0) orders" } ?? "no orders") }
            lines.forEach { print($0) }
        }

        static func line(_ order: Order) -> String {
            let date = ISO8601DateFormatter.string(from: order.dateCreated, timeZone: TimeZone(identifier: "UTC")!,
                                                   formatOptions: [.withFullDate])
            let items = order.items.reduce(0) { $0 + $1.quantity }
            return "#\(order.orderID)  \(order.status.padding(toLength: 10, withPad: " ", startingAt: 0))  \(date)  "
                + String(format: "%9.2f", order.total) + "  \(items) item\(items == 1 ? "" : "s")"
        }
    }

    /// `orders set-status ID STATUS`.
    struct SetStatus: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-status", abstract: "Change an order's status.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The order number.") var id: Int64
        @Argument(help: "The new status.") var status: String

        func run() throws {
            let manager = try store.open()
            let (id, status) = (id, status)
            let previous = try reportingStoreErrors {
                try manager.writeAndWait { storage -> String? in
                    guard let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id }) else { return nil }
                    defer { order.status = status }
                    return order.status
                }
            }
            guard let previous else { throw failure("there is no order #\(id)") }
            print("order #\(id): \(previous) → \(status)")
        }
    }

    /// `orders delete ID`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an order and its items.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The order number.") var id: Int64

        func run() throws {
            let manager = try store.open()
            let id = id
            let items = try reportingStoreErrors {
                try manager.writeAndWait { storage -> Int? in
                    guard let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id }) else { return nil }
                    let count = order.items.count
                    storage.deleteObject(order)
                    return count
                }
            }
            guard let items else { throw failure("there is no order #\(id)") }
            print("deleted order #\(id) and its \(items) item\(items == 1 ? "" : "s")")
        }
    }
}

extension OrdersCommand {
    /// `orders watch [--status S]`: a `ResultsController` over the orders, printing each change any
    /// process makes.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each change to the orders (by any process) as it is committed.",
            discussion: """
                Prints "watching N orders" once ready, then one line per inserted, deleted, moved or \
                updated order, with its place (section.row) in the list sorted by status and id.
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: "Only orders with this status.") var status: String?
        @Option(help: "Stop after this many changes (default: never).") var count: Int?
        @Option(help: "Stop after this many seconds (default: never).") var seconds: Double?

        func run() throws {
            let manager = try store.open()
            let (status, count, seconds) = (status, count, seconds)
            let finished = try MainActor.assumeIsolated { () throws -> Bool in
                let predicate: Predicate<Order>? = status.map { wanted in #Predicate { $0.status == wanted } }
                let controller = ResultsController<Order>(viewStorage: manager.viewStorage, sectionNameKeyPath: "status",
                                                          matching: predicate, sortedBy: [SortDescriptor(\.orderID)])
                var printed = 0
                controller.onDidChangeObject = { order, old, type, new in
                    print(Self.line(order, old, type, new))
                    fflush(nil)
                    printed += 1
                }
                try reportingStoreErrors { try controller.performFetch() }
                print("watching \(controller.numberOfObjects) orders" + (status.map { " with status \($0)" } ?? "")
                      + " in \(controller.sections.count) section\(controller.sections.count == 1 ? "" : "s")")
                fflush(nil)
                let deadline = seconds.map { Date().addingTimeInterval($0) } ?? .distantFuture
                while Date() < deadline && printed < (count ?? .max) {
                    _ = RunLoop.main.run(mode: .default, before: min(deadline, Date().addingTimeInterval(0.05)))
                }
                return printed >= (count ?? .max)
            }
            if count != nil && !finished { throw failure("fewer changes than --count before --seconds passed") }
        }

        static func line(_ order: Order.ReadOnly, _ old: IndexPath?, _ type: ResultsChangeType, _ new: IndexPath?) -> String {
            func place(_ path: IndexPath?) -> String { path.map { "\($0.section).\($0.row)" } ?? "-" }
            let what = String(describing: type).padding(toLength: 6, withPad: " ", startingAt: 0)
            let total = String(format: "%.2f", order.total)
            return switch type {
            case .insert: "\(what) #\(order.orderID) \(order.status) \(total) at \(place(new))"
            case .delete: "\(what) #\(order.orderID) from \(place(old))"
            case .move: "\(what) #\(order.orderID) \(order.status) \(total) from \(place(old)) to \(place(new))"
            case .update: "\(what) #\(order.orderID) \(order.status) \(total) at \(place(new))"
            }
        }
    }
}

/// A one-line progress bar on standard error, redrawn in place; silent when not on a terminal.
final class ProgressBar {
    let enabled: Bool
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ done: Int, of total: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(100 * done / total)% \(done)/\(total) orders".utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
