import Foundation

/// Kills a child process at an exact system call, with `strace`'s fault injection
/// (`-e inject=SET:signal=KILL:when=N`): the kernel delivers SIGKILL as the process enters its N-th
/// call of the set, before the call runs. A crash at a moment a random kill would hit once in
/// thousands of tries, in a real process.
///
/// ```swift
/// let child = try ChildProcess.start(StraceInjection.strace,
///                                    StraceInjection.killAtRename(2) + [probe.path, "command", path])
/// #expect(try await child.waitForExit(deadline: .now + .seconds(60)) == .signaled(SIGKILL))
/// ```
///
/// `strace` counts calls per thread; the calls a test counts must all come from one thread.
public enum StraceInjection {
    /// Where Debian's `strace` is (`ci/test` installs it when missing).
    public static let strace = URL(fileURLWithPath: "/usr/bin/strace")

    /// Whether `strace` is installed (it needs `ptrace`, which a container may forbid; the test then
    /// fails with strace's own message rather than passing).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: strace.path) }

    /// Why the tests that need it are skipped.
    public static let skipReason = "strace is not installed (ci/test installs it): the kill-at-a-system-call tests need it"

    /// `strace` arguments that kill the traced program when it enters its `n`-th `rename` (any of
    /// `rename`, `renameat`, `renameat2`), printing nothing; the program and its arguments follow.
    public static func killAtRename(_ n: Int) -> [String] {
        killAt("rename,renameat,renameat2", n)
    }

    /// `strace` arguments that kill the traced program when it enters its `n`-th call of `calls`
    /// (comma-separated system call names).
    public static func killAt(_ calls: String, _ n: Int) -> [String] {
        ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(calls)", "-e", "inject=\(calls):signal=KILL:when=\(n)"]
    }
}
