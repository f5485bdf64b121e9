import Foundation
import ManagedStorage

// The model: every entity the store holds.
let model = StorageModel(entities: [Order.self, OrderItem.self])

// The store is shop-demo/Shop.sqlite; the folder is created when it is missing.
let folder = URL(fileURLWithPath: "shop-demo", isDirectory: true)
let manager = try SQLiteStorageManager(model: model,
                                       configuration: StorageConfiguration(name: "Shop", folder: folder))
print("opened \(manager.storeURL.path)")
