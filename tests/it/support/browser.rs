//! What the tests in headless Chromium need (tests/browser/*.mjs): node, the system's
//! `/usr/bin/chromium` and playwright-core (with axe-core) from the shared tools' folder,
//! `../shared/tools` beside the repository or `VATCAR_SHARED_TOOLS`. Where they are missing
//! the test says so and skips; `.ci/run` sets `VATCAR_REQUIRE_BROWSER`, and there it fails.

use std::path::{Path, PathBuf};

/// The tools' folder and the browser.
pub struct Browser {
    pub tools: PathBuf,
    pub chromium: &'static Path,
}

/// The shared tools' folder (`VATCAR_SHARED_TOOLS`, else `../shared/tools` beside the
/// repository) if playwright-core is installed in it.
fn shared_tools() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("VATCAR_SHARED_TOOLS").map(PathBuf::from),
        Some(root.join("../shared/tools")),
        Some(root.join("../../shared/tools")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|tools| tools.join("node_modules/playwright-core").is_dir())
}

/// The tools, or `None` once it has said why the test is skipped.
pub fn browser_or_skip() -> Option<Browser> {
    let chromium = Path::new("/usr/bin/chromium");
    let node = std::process::Command::new("node").arg("--version").output();
    let (Some(tools), true, Ok(_)) = (shared_tools(), chromium.exists(), node) else {
        let missing = "needs node, /usr/bin/chromium and playwright-core in ../shared/tools \
                       (bash ../shared/tools/install-validators.sh), or VATCAR_SHARED_TOOLS";
        // .ci/run asks for it once the validators are installed: there it must not skip.
        assert!(
            std::env::var_os("VATCAR_REQUIRE_BROWSER").is_none(),
            "{missing}"
        );
        eprintln!("skipped: {missing}; .ci/run runs it");
        return None;
    };
    Some(Browser { tools, chromium })
}
