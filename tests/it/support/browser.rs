//! What the tests in headless Chromium need (tests/browser/*.mjs): node, the browser
//! (`$CHROMIUM`, or the system's `/usr/bin/chromium`) and playwright-core with axe-core in
//! `tests/validators/` (`bash scripts/ci/install-tools.sh` installs and links them). Where they
//! are missing the test says so and skips; with `VATCAR_REQUIRE_BROWSER` set (CI, once the
//! tools are installed) it fails instead, so that CI never passes a
//! browser test it did not run.

use std::path::{Path, PathBuf};

/// The tools' folder and the browser.
pub struct Browser {
    pub tools: PathBuf,
    pub chromium: PathBuf,
}

/// The tools, or `None` once it has said why the test is skipped.
pub fn browser_or_skip() -> Option<Browser> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators");
    let chromium = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let node = std::process::Command::new("node").arg("--version").output();
    if tools.join("node_modules/playwright-core").is_dir() && chromium.exists() && node.is_ok() {
        return Some(Browser { tools, chromium });
    }
    let missing = format!(
        "needs node, {} and playwright-core in tests/validators (bash scripts/ci/install-tools.sh)",
        chromium.display()
    );
    assert!(
        std::env::var_os("VATCAR_REQUIRE_BROWSER").is_none(),
        "{missing}"
    );
    eprintln!("skipped: {missing}; .ci/run runs it");
    None
}
