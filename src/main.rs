// A build allocates and frees many small strings on every core (template lookups, escaped
// text); mimalloc's per-thread heaps did that in about a quarter of the time glibc's malloc took.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    vatcar_site::cli::run()
}
