//! With `-v`, a line at the end of each stage of the build's pipeline: how long it took, so
//! that a slow build shows where its time goes; with `-vv`, the process's peak memory so far
//! too. docs/dev/performance.md describes the stages.

use std::time::Instant;

/// The clock of the stages' lines.
pub(super) struct Stages {
    clock: Instant,
}

impl Stages {
    pub(super) fn start() -> Self {
        Self {
            clock: Instant::now(),
        }
    }

    pub(super) fn done(&mut self, stage: &str) {
        let took = self.clock.elapsed();
        self.clock = Instant::now();
        let peak = if log::log_enabled!(log::Level::Debug) {
            peak_memory()
        } else {
            String::new()
        };
        log::info!("stage {stage}: {} ms{peak}", took.as_millis());
    }
}

/// The process's peak memory so far, where the system tells it (Linux), for `-vv`.
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", peak {} MiB", kib / 1024))
        })
        .unwrap_or_default()
}
