//! Materializing packages, from real folders and the installed npm servers.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Source, WorkspaceError, materialize};

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, text).unwrap();
}

fn node(cwd: &Path, script: &str) -> String {
    let out = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn installed_server(name: &str) -> PathBuf {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("servers-npm/node_modules")
        .join(name);
    assert!(
        dir.is_dir(),
        "{} is missing: run scripts/install-servers.sh first",
        dir.display()
    );
    dir
}

#[test]
fn an_installed_server_materializes_with_its_dependencies_resolvable_offline() {
    let source = installed_server("@modelcontextprotocol/server-memory");
    let tmp = tempfile::tempdir().unwrap();
    let workdir = tmp.path().join("ws");
    materialize(&Source::parse(source.to_str().unwrap()).unwrap(), &workdir).unwrap();
    assert!(workdir.join("package.json").is_file());
    assert!(workdir.join("dist/index.js").is_file());
    let sdk = workdir.join("node_modules/@modelcontextprotocol/sdk");
    assert!(
        fs::symlink_metadata(&sdk).unwrap().file_type().is_symlink(),
        "scoped deps are linked one by one"
    );
    assert!(
        !workdir
            .join("node_modules/@modelcontextprotocol/server-memory")
            .exists(),
        "the package does not link itself"
    );
    let script = "import('@modelcontextprotocol/sdk/server/mcp.js').then(() => console.log('ok'))";
    assert_eq!(node(&workdir, script), "ok");
}

#[test]
fn a_folder_with_its_own_node_modules_gets_them_copied_and_git_and_symlinks_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("pkg");
    write(
        &src,
        "package.json",
        r#"{"name":"pkg","type":"module","dependencies":{"dep":"1.0.0"}}"#,
    );
    write(&src, "index.js", "export { value } from 'dep';\n");
    write(&src, "lib/util.js", "export const util = 1;\n");
    write(&src, ".git/HEAD", "ref: refs/heads/main\n");
    write(
        &src,
        "lib/node_modules/inner/index.js",
        "nested copy skipped\n",
    );
    write(
        &src,
        "node_modules/dep/package.json",
        r#"{"name":"dep","type":"module","main":"index.js"}"#,
    );
    write(
        &src,
        "node_modules/dep/index.js",
        "export const value = 42;\n",
    );
    std::os::unix::fs::symlink("/etc/hostname", src.join("outside")).unwrap();
    let workdir = tmp.path().join("ws");
    materialize(&Source::Folder(src), &workdir).unwrap();
    assert!(workdir.join("lib/util.js").is_file());
    assert!(!workdir.join(".git").exists());
    assert!(!workdir.join("lib/node_modules").exists());
    assert!(fs::symlink_metadata(workdir.join("outside")).is_err());
    assert_eq!(
        node(
            &workdir,
            "import('./index.js').then(m => console.log(m.value))"
        ),
        "42"
    );
}

#[test]
fn a_folder_outside_any_node_modules_gets_npm_install_and_no_lockfile() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "dep/package.json",
        r#"{"name":"dep","version":"1.0.0","main":"index.js"}"#,
    );
    write(tmp.path(), "dep/index.js", "module.exports = 7;\n");
    let dep = tmp.path().join("dep");
    let src = tmp.path().join("pkg");
    write(
        &src,
        "package.json",
        &format!(
            r#"{{"name":"pkg","dependencies":{{"dep":"file:{}"}}}}"#,
            dep.display()
        ),
    );
    let workdir = tmp.path().join("ws");
    materialize(&Source::Folder(src), &workdir).unwrap();
    assert_eq!(
        node(&workdir, "import('dep').then(m => console.log(m.default))"),
        "7"
    );
    assert!(!workdir.join("package-lock.json").exists());
}

#[test]
fn a_failing_npm_install_names_the_command_and_its_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("pkg");
    write(
        &src,
        "package.json",
        r#"{"name":"pkg","dependencies":{"dep":"file:/nonexistent/mcpevol-dep.tgz"}}"#,
    );
    let err = materialize(&Source::Folder(src), &tmp.path().join("ws")).unwrap_err();
    assert!(matches!(err, WorkspaceError::CommandFailed { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("`npm install --omit=dev --ignore-scripts --no-audit --no-fund"),
        "{text}"
    );
    assert!(text.contains("exit status"), "{text}");
    assert!(
        text.contains("mcpevol-dep.tgz"),
        "stderr tail quoted: {text}"
    );
}

#[test]
fn materialize_refuses_a_folder_that_is_not_empty() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "pkg/package.json", "{}");
    write(tmp.path(), "ws/keep.txt", "x");
    let err = materialize(
        &Source::Folder(tmp.path().join("pkg")),
        &tmp.path().join("ws"),
    )
    .unwrap_err();
    assert!(matches!(err, WorkspaceError::NotEmpty(_)), "{err}");
}

#[test]
fn an_argument_is_a_folder_when_one_exists_and_an_npm_spec_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let arg = tmp.path().to_str().unwrap();
    assert_eq!(
        Source::parse(arg).unwrap(),
        Source::Folder(tmp.path().to_path_buf())
    );
    assert_eq!(
        Source::parse("@scope/pkg@1.2.3").unwrap(),
        Source::Npm("@scope/pkg@1.2.3".into())
    );
}

#[test]
#[ignore = "downloads from the npm registry"]
fn an_npm_spec_is_packed_extracted_and_installed() {
    let tmp = tempfile::tempdir().unwrap();
    let workdir = tmp.path().join("ws");
    materialize(
        &Source::parse("@modelcontextprotocol/server-memory@2026.8.31").unwrap(),
        &workdir,
    )
    .unwrap();
    assert!(workdir.join("dist/index.js").is_file());
    let script = "import('@modelcontextprotocol/sdk/server/mcp.js').then(() => console.log('ok'))";
    assert_eq!(node(&workdir, script), "ok");
}
