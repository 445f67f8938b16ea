//! Log lines on stderr, each scrubbed of every known API key.

use crate::fetch::secret::ApiKey;
use std::sync::Arc;

/// Log lines on stderr, each scrubbed of every known API key as a last line of defence.
pub struct Logger {
    level: log::LevelFilter,
    keys: Arc<std::sync::Mutex<Vec<ApiKey>>>,
}

impl Logger {
    pub fn install(level: log::LevelFilter, keys: Arc<std::sync::Mutex<Vec<ApiKey>>>) {
        let logger = Box::leak(Box::new(Logger { level, keys }));
        if log::set_logger(logger).is_ok() {
            log::set_max_level(level);
        }
    }
}

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= self.level && metadata.target().starts_with("vatcar_site")
    }

    fn log(&self, record: &log::Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let mut text = record.args().to_string();
        for key in self.keys.lock().expect("not poisoned").iter() {
            text = key.redact(&text);
        }
        let label = match record.level() {
            log::Level::Error => "error",
            log::Level::Warn => "warning",
            log::Level::Info => "info",
            log::Level::Debug | log::Level::Trace => "debug",
        };
        eprintln!("{label}: {text}");
    }

    fn flush(&self) {}
}
