fn main() -> std::process::ExitCode {
    vatcar_site::cli::run()
}
