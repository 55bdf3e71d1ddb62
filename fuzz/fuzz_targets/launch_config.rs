//! Reading arbitrary launch settings: `.mcpevol/server.toml` when the first byte is even, else
//! `package.json` (its `bin`/`main` entry point and name).
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcpevol::server::{self, LaunchConfig};

fn package() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temp folder");
        std::fs::create_dir_all(dir.path().join(".mcpevol")).expect(".mcpevol/");
        dir
    })
    .path()
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let root = package();
    let config = root.join(server::launch::CONFIG_PATH);
    let manifest = root.join("package.json");
    if pick % 2 == 0 {
        std::fs::write(&config, bytes).unwrap();
        std::fs::write(&manifest, "{}").unwrap();
    } else {
        let _ = std::fs::remove_file(&config);
        std::fs::write(&manifest, bytes).unwrap();
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
            let _ = server::launch::entry_point(&value);
        }
        let _ = server::launch::package_name(root);
    }
    match LaunchConfig::for_package(root) {
        Ok(c) => assert!(!c.command.is_empty() || pick % 2 == 0, "{c:?}"),
        Err(e) => drop(e.to_string()),
    }
});
