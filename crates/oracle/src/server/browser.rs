//! A browser for servers that drive one (puppeteer, the DevTools protocol): the machine's own
//! Chromium or Chrome, reached through a small script in the server's scratch folder that adds
//! what a sandboxed server needs. Without it such a server's every tool fails at the original
//! version too ("Could not find Chrome"), and no change to it can be seen working.
//!
//! The script is named in the variables puppeteer and its kin read (`PUPPETEER_EXECUTABLE_PATH`,
//! `CHROME_PATH`, `CHROME_BIN`), and launch settings can name it as `{browser}` (a server that
//! takes the path as a flag: `--executablePath {browser}`). A machine without a browser gets
//! neither: the server fails as it would, and the oracle records why.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Stands for the browser in launch `args` and `env`, as `{tmp}` stands for a folder.
pub const BROWSER_PLACEHOLDER: &str = "{browser}";

/// The programs looked for on PATH, in this order.
const PROGRAMS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// The variables that name the browser for the libraries that launch one.
pub const VARIABLES: &[&str] = &["PUPPETEER_EXECUTABLE_PATH", "CHROME_PATH", "CHROME_BIN"];

/// Flags every launch gets. A server here has no display (headless). Chromium's own sandbox
/// will not start as root (a server run as root with `--sandbox off`), and mcpevol's
/// namespaces stand in for it otherwise (`--no-sandbox`). Its `/dev/shm` may be read-only
/// (`--disable-dev-shm-usage`).
const FLAGS: &[&str] = &["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"];

/// The machine's browser, looked for once.
pub fn installed() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = std::env::var_os("PATH")?;
            PROGRAMS.iter().find_map(|program| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join(program))
                    .find(|p| is_executable(p))
            })
        })
        .as_deref()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The launch script for `browser`: the flags above, then whatever the server passes.
pub fn script(browser: &Path) -> String {
    let quoted = browser.display().to_string().replace('\'', r"'\''");
    format!(
        "#!/bin/sh\n# Written by mcpevol: the machine's browser, as a sandboxed server can run it.\nexec '{quoted}' {} \"$@\"\n",
        FLAGS.join(" ")
    )
}

/// Writes the launch script as `dir/browser` when the machine has a browser; its path.
pub fn write_script(dir: &Path) -> std::io::Result<Option<PathBuf>> {
    use std::os::unix::fs::PermissionsExt;
    let Some(browser) = installed() else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir)?;
    let path = dir.join("browser");
    std::fs::write(&path, script(browser))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok(Some(path))
}

/// What `{browser}` becomes where no script is written (a client's configuration, a machine
/// without a browser): the browser itself, or the first name looked for.
pub fn for_clients() -> String {
    installed().map_or_else(|| PROGRAMS[0].to_string(), |p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launch_script_runs_the_browser_headless_unsandboxed_with_the_callers_arguments() {
        let text = script(Path::new("/opt/it's here/chrome"));
        assert!(text.starts_with("#!/bin/sh\n"));
        let exec = text.lines().last().unwrap();
        assert_eq!(
            exec,
            r#"exec '/opt/it'\''s here/chrome' --headless=new --no-sandbox --disable-dev-shm-usage "$@""#
        );
    }

    #[test]
    fn a_written_script_is_executable_and_runs_where_the_machine_has_a_browser() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_script(&dir.path().join("bin")).unwrap();
        match (installed(), written) {
            (Some(_), Some(path)) => {
                assert!(is_executable(&path));
                let out = std::process::Command::new(&path)
                    .arg("--version")
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{out:?}");
                assert!(!out.stdout.is_empty());
            }
            (None, None) => assert_eq!(for_clients(), "chromium"),
            (found, written) => panic!("found {found:?} but wrote {written:?}"),
        }
    }
}
