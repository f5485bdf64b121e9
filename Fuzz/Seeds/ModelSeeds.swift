import Foundation

// Writes the model-shaped seeds of the two decoder targets with Foundation's own encoders, so the
// seeds are what real files look like. Re-run after changing `FuzzModel` (the binary files may differ
// in key order from run to run: `PropertyListEncoder` writes a `[Int: Float]` in hash order):
//
//   swiftc -parse-as-library Fuzz/Sources/FuzzSupport/FuzzModel.swift Fuzz/Seeds/ModelSeeds.swift -o /tmp/model-seeds
//   /tmp/model-seeds Fuzz/Seeds

@main
enum ModelSeeds {
    static func main() throws {
        let root = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Fuzz/Seeds")
        let leaf = Item(name: "leaf", count: -3, weight: nil, tags: [], stamp: nil, blob: nil, children: nil)
        let item = Item(name: "crate", count: 7, weight: 2.5, tags: ["a", "é", ""],
                        stamp: Date(timeIntervalSinceReferenceDate: 86_400.5), blob: Data([0, 1, 0xFF]), children: [leaf])
        let full = FuzzModel(
            title: "model", version: 3, enabled: true, ratio: 0.1,
            created: Date(timeIntervalSinceReferenceDate: 0), payload: Data("payload".utf8),
            items: [item, leaf], byName: ["first": item, "second": leaf], byNumber: [1: 1.5, -2: 0],
            matrix: [[1, 2], [], [255]], shapes: [.circle(radius: 1), .square(side: 2, label: "s"), .empty],
            kind: .fancy, note: "n", parent: item, big: UInt64.max, small: -128)
        let minimal = FuzzModel(
            title: "", version: 0, enabled: false, ratio: 0, created: Date(timeIntervalSinceReferenceDate: -1),
            payload: Data(), items: [], byName: [:], byNumber: [:], matrix: [], shapes: [], kind: .plain,
            note: nil, parent: nil, big: nil, small: nil)

        let plistFolder = root.appendingPathComponent("plist-decoder")
        let jsonFolder = root.appendingPathComponent("document-json")
        for folder in [plistFolder, jsonFolder] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        for (name, model) in [("full", full), ("minimal", minimal)] {
            let binary = PropertyListEncoder()
            binary.outputFormat = .binary
            try binary.encode(model).write(to: plistFolder.appendingPathComponent("model-\(name).bplist"))
            let xml = PropertyListEncoder()
            xml.outputFormat = .xml
            try xml.encode(model).write(to: plistFolder.appendingPathComponent("model-\(name).xml"))
            let json = JSONEncoder()
            json.outputFormatting = [.sortedKeys]
            try json.encode(model).write(to: jsonFolder.appendingPathComponent("model-\(name).json"))
        }
    }
}
