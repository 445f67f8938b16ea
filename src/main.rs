//! The `vatcar-site` binary: the allocator, and the command line.

/// A build allocates and frees many small strings on every core (template lookups, escaped
/// text); mimalloc's per-thread heaps do that in about a quarter of the time glibc's malloc
/// took (measured with callgrind on the benchmark's N = 1,000 build). It is chosen here, by
/// the program, as ripgrep does: a library does not pick its user's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Hands the pages mimalloc keeps for reuse back to the system, between stages
/// (`vatcar_site::memory::release_freed`).
fn release_freed() {
    // SAFETY: mi_collect only walks the allocator's own bookkeeping; it may be called at any
    // time from any thread.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

fn main() -> std::process::ExitCode {
    vatcar_site::memory::on_release(release_freed);
    vatcar_site::cmd::run()
}
