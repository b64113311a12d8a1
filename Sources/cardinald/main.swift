import ArgumentKit
import CMalloc
import Foundation

TerminationSignal.block()

let invocation = DaemonCommand.tree.parseProcessArgumentsOrExit()

// Without a connect timeout libpq waits for the operating system's TCP timeout (minutes) when the database host
// is unreachable; with it, readiness checks and reconnects fail fast. A value the operator set wins.
setenv("PGCONNECT_TIMEOUT", "5", 0)

// Request bodies of up to 16 MiB come and go. glibc serves blocks above M_MMAP_THRESHOLD with mmap and gives
// them back to the kernel when freed, but by default it raises that threshold to the size of each such block
// freed (up to 32 MiB), after which large bodies come from the heap arenas, one per thread, which keep the
// memory resident when it is freed. A fixed threshold turns that adjustment off (mallopt(3)).
_ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)

// Usage errors as `cardinal` reports them (exit 64); a failure to start or of a service is already logged (exit 1).
do {
    try invocation.run()
    exit(ExitCode.success)
} catch let error as UsageError {
    FileHandle.standardError.write(Data(error.description.utf8))
    exit(ExitCode.usage)
} catch {
    exit(ExitCode.failure)
}
