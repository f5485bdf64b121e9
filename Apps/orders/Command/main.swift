// orders: WooCommerce-style orders kept by ManagedStorage. See ../README.md.
import OrdersKit

await OrdersCommand.runAsProgram()
