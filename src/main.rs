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

/// mimalloc's options by their numbers in mimalloc.h's `mi_option_e` (the same in its v2 and
/// v3; libmimalloc-sys names only some of them).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// By default mimalloc commits the memory it reserves for its arenas up front (so that a
/// freed page is only marked as reusable, and still counted as the process's memory until the
/// system runs short) and keeps freed pages for 10 ms before handing them back. A build frees
/// on one core what another made (an event's page is made in the view and dropped once
/// rendered), so both kept a large build's memory long after it was freed: measured at
/// N = 10,000, a peak of 227 to 252 MiB with the defaults, 175 to 179 MiB with both off, and
/// the same CPU time.
extern "C" fn hand_memory_back_soon() {
    // SAFETY: mi_option_set only sets a number mimalloc reads; called before any thread.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

/// The options are set before the Rust runtime's first allocation, which reserves mimalloc's
/// first arena (set in `main`, they came too late for it: a peak of 188 to 200 MiB): run by
/// the loader, as a C constructor is. Elsewhere `main` sets them.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static SET_BEFORE_THE_RUNTIME: extern "C" fn() = hand_memory_back_soon;

fn main() -> std::process::ExitCode {
    hand_memory_back_soon();
    vatcar_site::memory::on_release(release_freed);
    vatcar_site::cmd::run()
}
