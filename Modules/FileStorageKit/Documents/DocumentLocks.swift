/// The documents whose lock this thread or task holds, and those inside an `update` body.
enum DocumentLocks {
    @TaskLocal static var held: Set<String> = []
    @TaskLocal static var updating: Set<String> = []
}
