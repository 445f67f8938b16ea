//! The `vatcar-site` binary: the allocator, and the command line.

#![forbid(unsafe_code)]

/// mimalloc, as its crate documents it, with two of its build features: `v2`, whose heaps
/// hand freed memory back to the system within milliseconds (v3, the default, keeps it for a
/// second, and a large build's peak then holds two stages at once), and `no_thp`, no
/// transparent huge pages (each first touch of a huge page clears 2 MiB, over and over as a
/// build frees and reuses memory). docs/dev/performance.md ("The allocator") has the
/// measurements. It is chosen here, by the program, as ripgrep does: a library does not pick
/// its user's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    vatcar_site::cmd::run()
}
