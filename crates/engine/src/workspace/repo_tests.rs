//! Workspace repositories, on real git repositories in temporary folders.

use std::fs;
use std::path::Path;

use super::{VersionTag, Workspace, WorkspaceError, trailers};

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, text).unwrap();
}

/// A workspace with a package, launch settings, an installed dependency and v0 committed.
fn workspace_at_v0(root: &Path) -> Workspace {
    write(root, "package.json", r#"{"name":"demo","version":"1.0.0"}"#);
    write(root, "src/index.js", "console.log('v0');\n");
    write(root, "src/tools/echo.js", "export const echo = 1;\n");
    write(
        root,
        ".mcpevol/server.toml",
        "command = \"node\"\nargs = [\"src/index.js\"]\n",
    );
    write(root, "node_modules/dep/index.js", "module.exports = 1;\n");
    let ws = Workspace::create(root).unwrap();
    ws.commit_version(VersionTag::new(0), "Import demo 1.0.0")
        .unwrap();
    ws
}

/// The edits of a round: a modification, an addition and a deletion.
fn evolve_to_v1(ws: &Workspace) {
    let root = ws.root();
    write(root, "src/index.js", "console.log('v1');\n");
    write(root, "src/tools/weather.js", "export const weather = 1;\n");
    fs::remove_file(root.join("src/tools/echo.js")).unwrap();
    ws.commit_version(
        VersionTag::new(1),
        "Add weather, drop echo\n\nOperator: add-tool\nTool: weather",
    )
    .unwrap();
}

#[test]
fn a_round_trip_commits_versions_and_restore_brings_back_v0_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_at_v0(dir.path());
    assert_eq!(
        ws.dirty_paths().unwrap(),
        Vec::<String>::new(),
        "node_modules is ignored"
    );
    assert_eq!(
        ws.read_at("v0", ".gitignore").unwrap().as_deref(),
        Some("node_modules/\n")
    );
    assert_eq!(ws.read_at("v0", "node_modules/dep/index.js").unwrap(), None);
    assert!(ws.read_at("v0", ".mcpevol/server.toml").unwrap().is_some());

    evolve_to_v1(&ws);
    assert_eq!(
        ws.read_at("v1", "src/tools/echo.js").unwrap(),
        None,
        "deletion committed"
    );
    assert_eq!(
        ws.read_at("v1", "src/tools/weather.js").unwrap().as_deref(),
        Some("export const weather = 1;\n")
    );
    let numbers: Vec<u32> = ws.versions().unwrap().iter().map(|v| v.number()).collect();
    assert_eq!(numbers, [0, 1]);
    assert_eq!(ws.head().unwrap(), ws.latest().unwrap().unwrap().commit);

    // A failed round: tracked edits, a staged file, an untracked file in a new folder.
    let root = dir.path();
    write(root, "src/index.js", "broken(\n");
    write(root, "src/new/deep/file.js", "x\n");
    write(root, "staged.js", "y\n");
    let repo = git2::Repository::open(root).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("staged.js")).unwrap();
    index.write().unwrap();
    assert_eq!(
        ws.dirty_paths().unwrap(),
        ["src/index.js", "src/new/deep/file.js", "staged.js"]
    );

    let v0 = ws.resolve("v0").unwrap();
    ws.restore(&v0).unwrap();
    assert_eq!(ws.dirty_paths().unwrap(), Vec::<String>::new());
    assert_eq!(
        fs::read_to_string(root.join("src/index.js")).unwrap(),
        "console.log('v0');\n"
    );
    assert!(
        root.join("src/tools/echo.js").is_file(),
        "deleted file is back"
    );
    assert!(
        !root.join("src/tools/weather.js").exists(),
        "file added in v1 is gone"
    );
    assert!(
        !root.join("src/new").exists(),
        "untracked folder is removed"
    );
    assert!(!root.join("staged.js").exists());
    assert!(
        root.join("node_modules/dep/index.js").is_file(),
        "node_modules stays"
    );
    assert_eq!(ws.head().unwrap(), v0);
}

#[test]
fn the_same_edits_on_two_fresh_workspaces_give_identical_commit_ids() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (wa, wb) = (workspace_at_v0(a.path()), workspace_at_v0(b.path()));
    evolve_to_v1(&wa);
    evolve_to_v1(&wb);
    assert_eq!(wa.versions().unwrap(), wb.versions().unwrap());
    assert_eq!(wa.tree_id("v1").unwrap(), wb.tree_id("v1").unwrap());
    assert_ne!(wa.tree_id("v0").unwrap(), wa.tree_id("v1").unwrap());
}

#[test]
fn a_version_tag_that_exists_is_refused_without_committing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_at_v0(dir.path());
    let head = ws.head().unwrap();
    write(dir.path(), "src/index.js", "changed\n");
    let err = ws.commit_version(VersionTag::new(0), "again").unwrap_err();
    assert!(
        matches!(err, WorkspaceError::TagExists { ref tag, .. } if tag == "v0"),
        "{err}"
    );
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
    assert_eq!(ws.head().unwrap(), head);
}

#[test]
fn stage_tags_point_at_their_targets_move_when_set_again_and_skip_missing_targets() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_at_v0(dir.path());
    evolve_to_v1(&ws);
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, VersionTag)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), VersionTag::parse(b).unwrap()))
            .collect()
    };
    ws.set_stage_tags(&pairs(&[("early", "v0"), ("late", "v1"), ("middle", "v7")]))
        .unwrap();
    assert_eq!(ws.resolve("early").unwrap(), ws.resolve("v0").unwrap());
    assert_eq!(ws.resolve("late").unwrap(), ws.resolve("v1").unwrap());
    assert!(ws.resolve("middle").is_err());
    ws.set_stage_tags(&pairs(&[("early", "v1")])).unwrap();
    assert_eq!(ws.resolve("early").unwrap(), ws.resolve("v1").unwrap());
    let tags: Vec<String> = ws
        .versions()
        .unwrap()
        .into_iter()
        .map(|v| v.tag.to_string())
        .collect();
    assert_eq!(tags, ["v0", "v1"], "stage tags are not versions");
}

#[test]
fn revisions_resolve_from_tags_branches_head_and_short_shas_and_errors_name_them() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_at_v0(dir.path());
    let full = ws.resolve("v0").unwrap();
    assert_eq!(full.len(), 40);
    assert_eq!(ws.resolve("main").unwrap(), full);
    assert_eq!(ws.resolve("HEAD").unwrap(), full);
    assert_eq!(ws.resolve(&full[..8]).unwrap(), full);
    let err = ws.resolve("v9").unwrap_err();
    assert!(err.to_string().contains("`v9`"), "{err}");
    assert_eq!(ws.message("v0").unwrap(), "Import demo 1.0.0\n");
}

#[test]
fn versions_sort_by_number_not_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_at_v0(dir.path());
    for n in 1..=11 {
        write(dir.path(), "src/index.js", &format!("console.log({n});\n"));
        ws.commit_version(VersionTag::new(n), &format!("Version {n}"))
            .unwrap();
    }
    let numbers: Vec<u32> = ws.versions().unwrap().iter().map(|v| v.number()).collect();
    assert_eq!(numbers, (0..=11).collect::<Vec<_>>());
    assert_eq!(ws.latest().unwrap().unwrap().tag.to_string(), "v11");
}

#[test]
fn create_keeps_existing_gitignore_lines_and_refuses_an_existing_repository() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".gitignore", "dist\n*.log");
    let ws = Workspace::create(dir.path()).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join(".gitignore")).unwrap(),
        "dist\n*.log\nnode_modules/\n"
    );
    drop(ws);
    let err = Workspace::create(dir.path()).err().unwrap();
    assert!(
        matches!(err, WorkspaceError::AlreadyARepository(_)),
        "{err}"
    );
}

#[test]
fn open_on_a_plain_folder_or_a_repository_without_settings_is_not_a_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let err = Workspace::open(dir.path()).err().unwrap();
    assert!(matches!(err, WorkspaceError::NotAWorkspace(_)));
    let expected = format!(
        "{} is not an mcpevol workspace (no .git or no .mcpevol/server.toml); create one with `mcpevol init`",
        dir.path().display()
    );
    assert_eq!(err.to_string(), expected);
    Workspace::create(dir.path()).unwrap();
    assert!(matches!(
        Workspace::open(dir.path()),
        Err(WorkspaceError::NotAWorkspace(_))
    ));
    write(dir.path(), ".mcpevol/server.toml", "command = \"node\"\n");
    assert!(Workspace::open(dir.path()).is_ok());
}

#[test]
fn trailers_come_from_the_last_paragraph_only_when_every_line_is_one() {
    let message = "Rename get_forecast to forecast\n\nNote: body text.\n\nOperator: rename-tool\nTool: get_forecast\nReason: long\n  continued\n";
    assert_eq!(
        trailers(message),
        [
            ("Operator", "rename-tool"),
            ("Tool", "get_forecast"),
            ("Reason", "long continued")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    assert!(trailers("Subject: only a subject").is_empty());
    assert!(trailers("Subject\n\nSome prose here.\nTool: x").is_empty());
    assert!(trailers("Subject\n\nBad key: x").is_empty());
}

/// A failed round is rolled back right after its edit, often within the second of the last
/// commit and with a file of the same size: the rollback must still bring the content back.
#[test]
fn restore_undoes_a_same_size_edit_made_in_the_second_of_the_commit() {
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace_at_v0(dir.path());
        let head = ws.head().unwrap();
        write(dir.path(), "src/index.js", "console.log('v9');\n");
        ws.restore(&head).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("src/index.js")).unwrap(),
            "console.log('v0');\n"
        );
        assert!(ws.dirty_paths().unwrap().is_empty());
    }
}

#[test]
fn objects_are_written_at_the_fast_compression_level_and_git_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_at_v0(dir.path());
    let text = "export const big = 1;\n".repeat(2_000);
    write(dir.path(), "src/big.js", &text);
    ws.commit_version(VersionTag::new(1), "Add big").unwrap();
    let oid = git2::Oid::hash_object(git2::ObjectType::Blob, text.as_bytes())
        .unwrap()
        .to_string();
    let loose = dir
        .path()
        .join(".git/objects")
        .join(&oid[..2])
        .join(&oid[2..]);
    let bytes = fs::read(&loose).unwrap();
    // zlib's header names its level: 0x78 0x01 is the fastest, 0x78 0x9c libgit2's default.
    assert_eq!(&bytes[..2], &[0x78, 0x01], "{}", loose.display());
    let shown = std::process::Command::new("git")
        .args(["cat-file", "-p", &oid])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(shown.status.success());
    assert_eq!(String::from_utf8(shown.stdout).unwrap(), text);
}

/// A bundle of a few hundred kilobytes, as a line per statement.
fn bundle(version: u32) -> String {
    (0..20_000)
        .map(|i| format!("var v{i} = {};\n", i * version))
        .collect()
}

#[test]
fn a_large_file_written_ahead_commits_the_blob_and_stat_data_git_itself_would() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "dist/index.js", &bundle(1));
    let ws = workspace_at_v0(root);
    let path = root.join("dist/index.js");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    write(root, "dist/index.js", &bundle(2));
    assert!(fs::metadata(&path).unwrap().len() >= 256 * 1024);
    ws.write_blobs_ahead(&["dist/index.js".to_string()]);
    let expected = git2::Oid::hash_file(git2::ObjectType::Blob, &path).unwrap();
    assert!(ws.repo.odb().unwrap().exists(expected), "written ahead");
    ws.commit_version(VersionTag::new(1), "Edit the bundle")
        .unwrap();

    assert_eq!(ws.read_at("v1", "dist/index.js").unwrap(), Some(bundle(2)));
    let tree = ws
        .repo
        .revparse_single("v1^{tree}")
        .unwrap()
        .peel_to_tree()
        .unwrap();
    let entry = tree.get_path(Path::new("dist/index.js")).unwrap();
    assert_eq!(entry.id(), expected);
    assert_eq!(entry.filemode(), 0o100755, "the executable bit is kept");
    assert_eq!(ws.dirty_paths().unwrap(), Vec::<String>::new());
    // git itself reads the index and finds nothing to stage.
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(status.status.success());
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");

    // Edited again without a head start: staged by content all the same.
    write(root, "dist/index.js", &bundle(3));
    ws.commit_version(VersionTag::new(2), "Edit it again")
        .unwrap();
    assert_eq!(ws.read_at("v2", "dist/index.js").unwrap(), Some(bundle(3)));
    assert_eq!(ws.dirty_paths().unwrap(), Vec::<String>::new());
}
