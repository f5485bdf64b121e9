import ArgumentParser
import CommandSupport
import FileStorageKit
import Foundation
import ManagedStorage

/// `orders`: WooCommerce-style orders in a SQLite store, through ManagedStorage.
///
/// ```swift
/// let status = await OrdersCommand.run(arguments: ["list", "--folder", path], streams: .standard)
/// ```
///
/// `Command/main.swift` runs it as the `orders` program; the tour runs it as a second process and the
/// tests in-process.
public struct OrdersCommand: ParsableCommand {
    /// The command's name, help and subcommands: `generate`, `import`, `list`, `set-status`, `delete`, `watch`.
    public static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Keeps orders and their items in Orders.sqlite (ManagedStorage, on SQLite).",
        discussion: """
            Every change is one transaction: another orders process sees it whole or not at all, and a \
            killed process loses nothing it reported done. Exit status: 0 on success, 64 for bad \
            arguments, 1 for an order that does not exist or a store error.
            """,
        subcommands: [Generate.self, Import.self, List.self, SetStatus.self, Delete.self, Watch.self])

    /// The command with no arguments parsed; `OrdersCommand.run(arguments:streams:)` parses and runs it.
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
            throw CommandFailure("\(error)")
        }
    }
}

/// Runs `body`, turning a store error into `orders: <description>` and exit status 1.
func reportingStoreErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StorageError {
        throw CommandFailure("\(error)")
    }
}

extension OrdersCommand {
    /// `orders generate N`: sample orders as JSON on standard output.
    struct Generate: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "Print N sample orders with items as JSON.")

        @Argument(help: "How many orders.") var count: Int
        @Option(help: "The seed; the same seed gives the same orders.") var seed: UInt64 = 1

        func validate() throws {
            guard count >= 0 else { throw ValidationError("the count cannot be negative") }
        }

        func run(_ streams: CommandStreams) async throws {
            let data = try OrderRecord.encoder().encode(SampleOrders.make(count: count, seed: seed))
            streams.writeOutput(data + Data("\n".utf8))
        }
    }

    /// `orders import FILE.json`.
    struct Import: StreamingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import orders from JSON (as `generate` writes it); existing order numbers are updated.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The JSON file.") var file: String

        func run(_ streams: CommandStreams) async throws {
            let records: [OrderRecord]
            do {
                records = try OrderRecord.decoder().decode([OrderRecord].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                throw ValidationError("\(file) is not a list of orders: \(error)")
            }
            let manager = try store.open()
            let bar = ProgressBar(streams)
            let started = ContinuousClock.now
            let summary = try reportingStoreErrors {
                try OrderImport.run(records, into: manager) { done, total in bar.show(done, of: total) }
            }
            bar.finish()
            let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - started).components.seconds)
            streams.print("imported \(records.count) orders (\(summary.inserted) new, \(summary.updated) updated) in \(String(format: "%.2f", seconds)) s")
        }
    }

    /// `orders list`.
    struct List: StreamingCommand {
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

        func run(_ streams: CommandStreams) async throws {
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
            if lines.isEmpty { streams.print(status.map { "no \($0) orders" } ?? "no orders") }
            lines.forEach { streams.print($0) }
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
    struct SetStatus: StreamingCommand {
        static let configuration = CommandConfiguration(commandName: "set-status", abstract: "Change an order's status.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The order number.") var id: Int64
        @Argument(help: "The new status.") var status: String

        func run(_ streams: CommandStreams) async throws {
            let manager = try store.open()
            let (id, status) = (id, status)
            let previous = try reportingStoreErrors {
                try manager.writeAndWait { storage -> String? in
                    guard let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == id }) else { return nil }
                    defer { order.status = status }
                    return order.status
                }
            }
            guard let previous else { throw CommandFailure("there is no order #\(id)") }
            streams.print("order #\(id): \(previous) → \(status)")
        }
    }

    /// `orders delete ID`.
    struct Delete: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an order and its items.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The order number.") var id: Int64

        func run(_ streams: CommandStreams) async throws {
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
            guard let items else { throw CommandFailure("there is no order #\(id)") }
            streams.print("deleted order #\(id) and its \(items) item\(items == 1 ? "" : "s")")
        }
    }
}

extension OrdersCommand {
    /// `orders watch [--status S]`: a `ResultsController` over the orders, printing each change any
    /// process makes.
    struct Watch: StreamingCommand {
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

        func run(_ streams: CommandStreams) async throws {
            let manager = try store.open()
            let finished = try await Self.watch(manager, status: status, count: count, seconds: seconds, streams)
            if count != nil && !finished { throw CommandFailure("fewer changes than --count before --seconds passed") }
        }

        /// Prints the changes until `count` were printed or `seconds` passed; returns whether `count`
        /// were printed. Cancelling the task ends it at once (`CancellationError`).
        @MainActor
        static func watch(_ manager: SQLiteStorageManager, status: String?, count: Int?, seconds: Double?,
                          _ streams: CommandStreams) async throws -> Bool {
            let predicate: Predicate<Order>? = status.map { wanted in #Predicate { $0.status == wanted } }
            let controller = ResultsController<Order>(viewStorage: manager.viewStorage, sectionNameKeyPath: "status",
                                                      matching: predicate, sortedBy: [SortDescriptor(\.orderID)])
            let (changes, continuation) = AsyncStream<String>.makeStream()
            controller.onDidChangeObject = { order, old, type, new in continuation.yield(Self.line(order, old, type, new)) }
            try reportingStoreErrors { try controller.performFetch() }
            streams.print("watching \(controller.numberOfObjects) orders" + (status.map { " with status \($0)" } ?? "")
                          + " in \(controller.sections.count) section\(controller.sections.count == 1 ? "" : "s")")
            let finished = try await withTimeLimit(seconds: seconds) {
                var printed = 0
                guard count.map({ $0 > 0 }) ?? true else { return true }
                for await line in changes {
                    streams.print(line)
                    printed += 1
                    if printed == count { break }
                }
                return true
            }
            withExtendedLifetime(controller) {}
            return finished != nil
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

/// A one-line progress bar on standard error, redrawn in place; silent when that is not a terminal.
final class ProgressBar {
    let streams: CommandStreams
    private var drawn = false

    init(_ streams: CommandStreams) { self.streams = streams }

    func show(_ done: Int, of total: Int) {
        guard streams.errorIsTerminal, total > 0 else { return }
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        streams.printError("\r[\(bar)] \(100 * done / total)% \(done)/\(total) orders", terminator: "")
        drawn = true
    }

    func finish() {
        if drawn { streams.printError("") }
    }
}
