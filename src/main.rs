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

/// mimalloc's options by their numbers in mimalloc.h's `mi_option_e` (the same in its v2 and
/// v3; libmimalloc-sys names only some of them).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// By default mimalloc commits the memory it reserves for its arenas up front (so that a
/// freed page is only marked as reusable, and still counted as the process's memory until the
/// system runs short) and keeps freed pages for a second before handing them back. A build
/// frees on one core what another made (an event's page is made in the view and dropped once
/// rendered), so both kept a large build's memory long after it was freed. Measured at
/// N = 10,000 (peak; CPU time, user and system, median of three):
///
/// - the defaults: 227 to 252 MiB;
/// - arenas committed as used: 173 to 187 MiB, 2.14 s (2.25 s with the defaults);
/// - and freed pages handed back at once: 137 MiB, but 2.29 to 2.37 s, the time going to the
///   system, which maps them again;
/// - and freed pages handed back after 1 ms: 142 to 144 MiB, 2.19 s.
extern "C" fn hand_memory_back_soon() {
    // SAFETY: mi_option_set only sets a number mimalloc reads; called before any thread.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 1);
    }
}

/// The options (and no huge pages) are set before the Rust runtime's first allocation, which reserves mimalloc's
/// first arena (set in `main`, they came too late for it: a peak of 188 to 200 MiB): run by
/// the loader, as a C constructor is. Elsewhere `main` sets them.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static SET_BEFORE_THE_RUNTIME: extern "C" fn() = before_the_runtime;

extern "C" fn before_the_runtime() {
    no_huge_pages();
    hand_memory_back_soon();
}

fn main() -> std::process::ExitCode {
    before_the_runtime();
    vatcar_site::memory::on_release(release_freed);
    vatcar_site::cmd::run()
}
