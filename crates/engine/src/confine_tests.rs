//! The scope of edits, on real git repositories in temporary folders.

use std::path::Path;

use crate::hunks::{self, EditError, Hunk};

/// A git work tree holding `files`, all committed: what a workspace looks like to the edits.
pub(crate) fn committed_package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    commit_all(dir.path());
    dir
}

/// Commits everything in the work tree (what `.gitignore` allows) on HEAD.
pub(crate) fn commit_all(root: &Path) {
    let repo = git2::Repository::open(root)
        .or_else(|_| git2::Repository::init(root))
        .unwrap();
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("test", "test@localhost").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, "files", &tree, &parents)
        .unwrap();
}

fn refusal(root: &Path, h: Hunk) -> String {
    let err = hunks::apply(root, &[h]).unwrap_err();
    assert!(
        matches!(err, EditError::Refused { .. } | EditError::Outside { .. }),
        "{err:?}"
    );
    err.to_string()
}

/// A workspace with sources, records, an ignored build output and an installed dependency.
fn workspace() -> tempfile::TempDir {
    let dir = committed_package(&[
        ("package.json", "{\"name\": \"w\"}\n"),
        ("src/index.js", "const a = 1;\n"),
        (".mcpevol/server.toml", "command = \"node\"\n"),
        (".gitignore", "node_modules/\nbuild/\n"),
    ]);
    let root = dir.path();
    std::fs::create_dir_all(root.join("node_modules/dep")).unwrap();
    std::fs::write(
        root.join("node_modules/dep/index.js"),
        "module.exports = 1;\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.js"), "const built = 1;\n").unwrap();
    dir
}

#[test]
fn a_tracked_source_file_may_be_edited_and_created_beside() {
    let dir = workspace();
    let changed = hunks::apply(
        dir.path(),
        &[
            Hunk::new("./src/index.js", "const a = 1;", "const a = 2;"),
            Hunk::new("src/extra.js", "", "export const b = 1;\n"),
            Hunk::new("src/extra.js", "b = 1", "b = 3"),
        ],
    )
    .unwrap();
    assert_eq!(changed, ["src/extra.js", "src/index.js"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/extra.js")).unwrap(),
        "export const b = 3;\n"
    );
}

#[test]
fn files_under_git_mcpevol_or_node_modules_are_refused_with_the_reason() {
    let dir = workspace();
    let root = dir.path();
    let config = std::fs::read(root.join(".git/config")).unwrap();
    let cases = [
        (
            Hunk::new(".git/config", "[core]", "[core]\n\thooksPath = /tmp"),
            "version history",
        ),
        (
            Hunk::new(".mcpevol/server.toml", "node", "sh"),
            "launch settings",
        ),
        (
            Hunk::new("node_modules/dep/index.js", "= 1", "= 2"),
            "installed dependencies",
        ),
        (
            Hunk::new("src/node_modules/x.js", "", "x"),
            "installed dependencies",
        ),
        (
            Hunk::new(".gitignore", "node_modules/\n", ""),
            "what git records",
        ),
        (
            Hunk::new("src/.gitignore", "", "*.js\n"),
            "what git records",
        ),
    ];
    for (h, why) in cases {
        let file = h.file.clone();
        let message = refusal(root, h);
        assert!(
            message.contains(&format!("hunk 1 for {file} is refused")) && message.contains(why),
            "{message}"
        );
    }
    assert_eq!(std::fs::read(root.join(".git/config")).unwrap(), config);
    assert_eq!(
        std::fs::read_to_string(root.join("node_modules/dep/index.js")).unwrap(),
        "module.exports = 1;\n"
    );
    assert!(!root.join("src/.gitignore").exists());
}

#[test]
fn an_ignored_or_untracked_file_is_refused() {
    let dir = workspace();
    std::fs::write(dir.path().join("src/scratch.js"), "let s = 1;\n").unwrap();
    for file in ["build/out.js", "src/scratch.js"] {
        let message = refusal(dir.path(), Hunk::new(file, "= 1", "= 2"));
        assert!(message.contains("not tracked"), "{message}");
    }
}

#[test]
fn paths_out_of_the_package_are_refused_before_anything_is_read() {
    let dir = workspace();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.js");
    std::fs::write(&target, "const a = 1;\n").unwrap();
    let absolute = target.to_string_lossy().into_owned();
    for (file, why) in [
        ("../x.js", "`..`"),
        ("src/../../x.js", "`..`"),
        (absolute.as_str(), "absolute"),
        ("~/.bashrc", "absolute"),
    ] {
        let message = refusal(dir.path(), Hunk::new(file, "const a = 1;", "pwned"));
        assert!(
            message.contains("outside the package") && message.contains(why),
            "{message}"
        );
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "const a = 1;\n");
}

#[test]
fn a_path_through_a_symlinked_folder_is_refused_even_where_git_tracks_the_name() {
    let dir = workspace();
    let root = dir.path();
    // `src/` was a tracked folder; in the work tree it is now a link to another folder that
    // holds a file of the same name.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("index.js"), "const a = 1;\n").unwrap();
    std::fs::rename(root.join("src"), root.join("src.moved")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join("src")).unwrap();
    for h in [
        Hunk::new("src/index.js", "const a = 1;", "pwned"),
        Hunk::new("src/new.js", "", "pwned"),
    ] {
        let message = refusal(root, h);
        assert!(message.contains("`src` is a symbolic link"), "{message}");
    }
    assert_eq!(
        std::fs::read_to_string(elsewhere.path().join("index.js")).unwrap(),
        "const a = 1;\n"
    );
    assert!(!elsewhere.path().join("new.js").exists());
}

#[test]
fn a_tracked_symlink_is_not_edited_through() {
    let dir = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("t.js");
    std::fs::write(&target, "const a = 1;\n").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("src/link.js")).unwrap();
    commit_all(dir.path());
    let message = refusal(
        dir.path(),
        Hunk::new("src/link.js", "const a = 1;", "pwned"),
    );
    assert!(message.contains("link"), "{message}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "const a = 1;\n");
}

#[test]
fn a_new_file_only_goes_beside_tracked_files() {
    let dir = workspace();
    for file in ["lib/new.js", "src/deeper/new.js", "build/new.js"] {
        let message = refusal(dir.path(), Hunk::new(file, "", "export const x = 1;\n"));
        assert!(
            message.contains("folder that already holds tracked files") && message.contains("src/"),
            "{message}"
        );
        assert!(!dir.path().join(file).exists());
    }
}

#[test]
fn a_folder_that_is_not_a_git_work_tree_takes_no_edits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.js"), "a\n").unwrap();
    let err = hunks::apply(dir.path(), &[Hunk::new("a.js", "a", "b")]).unwrap_err();
    assert!(err.to_string().contains("not a git work tree"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.js")).unwrap(),
        "a\n"
    );
}
