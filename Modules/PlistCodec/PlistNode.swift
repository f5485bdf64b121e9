import Foundation
enum PlistNode { case null; init(_ v: PlistValue) { self = .null } }
struct BinaryPlistWriter { let mode: PlistWriteMode; func write(_ n: PlistNode) throws -> Data { Data() } }
struct XMLPlistWriter { let mode: PlistWriteMode; func write(_ n: PlistNode) throws -> Data { Data() } }
