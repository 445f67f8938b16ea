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

/// No transparent huge pages for this process. mimalloc asks for them, and the kernel then
/// clears 2 MiB at the first touch of each; a build frees and reuses memory stage by stage
/// ([`release_freed`]), so at N = 10,000 it spent a sixth of its CPU time clearing pages it
/// had just handed back (perf: `clear_page_erms`). With 4 KiB pages only what is touched is
/// cleared: system time fell from 0.86-1.25 s to 0.61-0.82 s and the peak from 337 to 290
/// MiB, user time unchanged (benches/bench.py's data, five runs in turns).
#[cfg(target_os = "linux")]
fn no_huge_pages() {
    // SAFETY: prctl with PR_SET_THP_DISABLE only sets a flag of this process; an old kernel
    // that lacks it answers EINVAL, which changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}

fn main() -> std::process::ExitCode {
    no_huge_pages();
    vatcar_site::memory::on_release(release_freed);
    vatcar_site::cmd::run()
}
