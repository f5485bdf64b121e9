import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libplist (the C library of libimobiledevice; Debian's `libplist-dev`), loaded at run time so the
/// benchmarks build without it. Only the value-tree calls: parse bytes to a `plist_t`, write one out.
struct LibPlist {
    typealias Node = OpaquePointer
    private typealias Parse = @convention(c) (UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    private typealias Write = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                              UnsafeMutablePointer<UInt32>?) -> Void
    private typealias FreeNode = @convention(c) (OpaquePointer?) -> Void
    private typealias FreeBuffer = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void

    /// The library file that was loaded.
    let path: String
    private let fromBin: Parse, fromXML: Parse, toBin: Write, toXML: Write
    private let freeNode: FreeNode, freeBin: FreeBuffer, freeXML: FreeBuffer

    /// Loads the library, or says why it could not.
    static func load() -> Result<LibPlist, LoadError> {
        let names = ["libplist-2.0.so.3", "libplist-2.0.so", "libplist.so.3", "libplist-2.0.dylib", "libplist-2.0.3.dylib"]
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            func symbol<T>(_ name: String, as: T.Type) -> T? {
                dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
            }
            guard let fromBin = symbol("plist_from_bin", as: Parse.self),
                  let fromXML = symbol("plist_from_xml", as: Parse.self),
                  let toBin = symbol("plist_to_bin", as: Write.self),
                  let toXML = symbol("plist_to_xml", as: Write.self),
                  let freeNode = symbol("plist_free", as: FreeNode.self),
                  let freeBin = symbol("plist_to_bin_free", as: FreeBuffer.self) ?? symbol("plist_mem_free", as: FreeBuffer.self),
                  let freeXML = symbol("plist_to_xml_free", as: FreeBuffer.self) ?? symbol("plist_mem_free", as: FreeBuffer.self)
            else { return .failure(LoadError(message: "\(name) lacks the value-tree functions")) }
            return .success(LibPlist(path: name, fromBin: fromBin, fromXML: fromXML, toBin: toBin, toXML: toXML,
                                     freeNode: freeNode, freeBin: freeBin, freeXML: freeXML))
        }
        return .failure(LoadError(message: "libplist is not installed (Debian: apt-get install libplist-dev)"))
    }

    struct LoadError: Error { var message: String }
    struct ParseError: Error, CustomStringConvertible { var description: String }

    /// Parses `data` (binary or XML, as `binary` says) into a tree the caller frees with `free`.
    func parse(_ data: Data, binary: Bool) throws -> Node {
        var node: OpaquePointer?
        data.withUnsafeBytes { raw in
            let bytes = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            (binary ? fromBin : fromXML)(bytes, UInt32(raw.count), &node)
        }
        guard let node else { throw ParseError(description: "libplist could not parse the \(binary ? "binary" : "XML") file") }
        return node
    }

    /// Writes `node` out; returns the byte count (the bytes are freed at once).
    func write(_ node: Node, binary: Bool) -> Int {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: UInt32 = 0
        (binary ? toBin : toXML)(node, &buffer, &length)
        (binary ? freeBin : freeXML)(buffer)
        return Int(length)
    }

    /// Writes `node` out and returns the bytes (for checks, not timed).
    func bytes(_ node: Node, binary: Bool) -> Data {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: UInt32 = 0
        (binary ? toBin : toXML)(node, &buffer, &length)
        defer { (binary ? freeBin : freeXML)(buffer) }
        guard let buffer else { return Data() }
        return Data(bytes: buffer, count: Int(length))
    }

    func free(_ node: Node) { freeNode(node) }
}
