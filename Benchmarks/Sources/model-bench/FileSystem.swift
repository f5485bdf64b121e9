import Foundation

/// The type of the file system `url` is on, from the longest matching mount point in `/proc/self/mounts`
/// (fsync costs depend on it: on tmpfs it costs nothing).
func fileSystemName(_ url: URL) -> String {
    guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return "file system unknown" }
    let path = url.resolvingSymlinksInPath().path
    var best: (mountPoint: String, type: String)?
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 3 else { continue }
        // Mount points escape spaces as \040; the temporary folders here have none.
        let mountPoint = String(fields[1]), type = String(fields[2])
        let contains = mountPoint == "/" || path == mountPoint || path.hasPrefix(mountPoint + "/")
        if contains, mountPoint.count >= (best?.mountPoint.count ?? -1) { best = (mountPoint, type) }
    }
    guard let best else { return "file system unknown" }
    return "file system \(best.type), mounted at \(best.mountPoint)" + (best.type == "tmpfs" ? ": fsync costs nothing here" : "")
}
