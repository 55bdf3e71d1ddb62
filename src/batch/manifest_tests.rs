use super::*;

fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("batch.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn problems(text: &str) -> Vec<Problem> {
    let (_dir, path) = write(text);
    match Manifest::load(&path) {
        Err(ManifestError::Problems(p)) => p,
        other => panic!("expected problems, got {other:?}"),
    }
}

#[test]
fn the_servers_npm_catalog_is_a_valid_manifest() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("servers-npm/servers.toml");
    let manifest = Manifest::load(&path).unwrap();
    let catalog = crate::catalog::Catalog::load(&path).unwrap();
    assert_eq!(manifest.servers.len(), catalog.servers.len());
    let memory = &manifest.servers[0];
    assert_eq!(memory.name, "memory");
    assert!(
        matches!(&memory.origin, Origin::Folder(p) if p.ends_with("node_modules/@modelcontextprotocol/server-memory"))
    );
    let launch = memory.launch.as_ref().unwrap();
    assert_eq!(launch.args, ["dist/index.js"]);
    assert_eq!(launch.env["MEMORY_FILE_PATH"], "{tmp}/memory.json");
}

#[test]
fn an_unknown_field_is_reported_with_its_line_and_server() {
    let found = problems(
        "[[server]]\nid = \"a\"\nsource = \"./a\"\n\n[[server]]\nid = \"b\"\nsource = \"./b\"\ncolour = \"red\"\n",
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, 8, "{}", found[0]);
    assert_eq!(found[0].server.as_deref(), Some("b"));
    assert!(
        found[0].why.contains("unknown field `colour`"),
        "{}",
        found[0]
    );
}

#[test]
fn a_duplicate_name_is_reported_at_its_second_table_with_the_first_line() {
    let found = problems(
        "[[server]]\nid = \"a\"\nsource = \"x@1\"\n\n[[server]]\nid = \"a\"\nsource = \"y@1\"\n",
    );
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].line, found[0].server.as_deref()), (5, Some("a")));
    assert!(found[0].why.contains("first at line 1"), "{}", found[0]);
    let text = found[0].to_string();
    assert!(text.contains("batch.toml:5: server `a`:"), "{text}");
}

#[test]
fn a_server_with_no_source_and_one_with_a_bad_name_are_both_reported() {
    let found = problems("[[server]]\nid = \"a\"\n\n[[server]]\nid = \"../b\"\nsource = \"b@1\"\n");
    let lines: Vec<(usize, Option<&str>)> = found
        .iter()
        .map(|p| (p.line, p.server.as_deref()))
        .collect();
    assert_eq!(lines, [(1, Some("a")), (4, Some("../b"))]);
}

#[test]
fn sources_are_folders_when_written_as_paths_and_npm_specs_otherwise() {
    let (dir, path) = write(
        "[[server]]\nid = \"local\"\nsource = \"./pkg\"\nseed = 9\nrounds = 2\nenv = { A = \"1\" }\n\n\
         [[server]]\nid = \"remote\"\nsource = \"@scope/pkg@1.2.3\"\nargs = [\"dist/x.js\"]\n",
    );
    let manifest = Manifest::load(&path).unwrap();
    let [local, remote] = manifest.servers.as_slice() else {
        panic!()
    };
    assert_eq!(local.origin, Origin::Folder(dir.path().join("pkg")));
    assert_eq!((local.seed, local.rounds), (Some(9), Some(2)));
    assert!(local.launch.is_none());
    assert_eq!(local.env["A"], "1");
    assert_eq!(remote.origin, Origin::Npm("@scope/pkg@1.2.3".into()));
    let launch = remote.launch.as_ref().unwrap();
    assert_eq!((launch.command.as_str(), launch.args.len()), ("node", 1));
    assert_eq!(manifest.digest.len(), 64);
}

#[test]
fn a_missing_folder_is_reported_as_not_installable_with_its_line() {
    let (dir, path) = write(
        "[[server]]\nid = \"here\"\nsource = \"./here\"\n\n[[server]]\nid = \"gone\"\nsource = \"./gone\"\n",
    );
    std::fs::create_dir(dir.path().join("here")).unwrap();
    std::fs::write(dir.path().join("here/package.json"), "{}").unwrap();
    let manifest = Manifest::load(&path).unwrap();
    let all: Vec<&Server> = manifest.servers.iter().collect();
    let Err(ManifestError::Problems(found)) = manifest.check_installable(&all) else {
        panic!("the missing folder passed");
    };
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].line, found[0].server.as_deref()),
        (5, Some("gone"))
    );
    assert!(found[0].why.contains("does not exist"), "{}", found[0]);
    manifest.check_installable(&all[..1]).unwrap();
}

#[test]
fn the_servers_pypi_catalog_is_a_valid_manifest_whose_packages_are_its_installs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("servers-pypi/servers.toml");
    let manifest = Manifest::load(&path).unwrap();
    let time = &manifest.servers[0];
    assert_eq!(time.name, "time");
    assert!(
        matches!(&time.origin, Origin::Folder(p) if p.ends_with("installed/pypi/mcp-server-time-2025.9.25/package")),
        "{:?}",
        time.origin
    );
    assert_eq!(time.launch.as_ref().unwrap().command, ".venv/bin/python");
}

#[test]
fn a_pypi_source_must_name_an_exact_version() {
    let (_dir, path) = write(
        "[[server]]\nid = \"ok\"\nsource = \"pypi:mcp-server-time==2025.9.25\"\n\n[[server]]\nid = \"loose\"\nsource = \"pypi:mcp-server-time\"\n",
    );
    let manifest = Manifest::load(&path).unwrap();
    let all: Vec<&Server> = manifest.servers.iter().collect();
    let Err(ManifestError::Problems(found)) = manifest.check_installable(&all) else {
        panic!("a spec without a version passed");
    };
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].server.as_deref(), Some("loose"));
    assert!(found[0].why.contains("pypi:NAME==VERSION"), "{}", found[0]);
}

#[test]
fn a_pypi_release_without_a_command_runs_as_installed_with_its_args_appended() {
    let (_dir, path) = write(
        "[[server]]\nid = \"py\"\npackage = \"pypi:excel-like==1.0\"\nargs = [\"stdio\"]\nenv = { A = \"1\" }\n\n[[server]]\nid = \"npm\"\npackage = \"some-server\"\nargs = [\"dist/index.js\"]\n",
    );
    let manifest = Manifest::load(&path).unwrap();
    let (py, npm) = (&manifest.servers[0], &manifest.servers[1]);
    assert!(py.launch.is_none(), "{:?}", py.launch);
    assert_eq!(py.args, ["stdio"]);
    assert_eq!(py.env["A"], "1");
    // An npm package's args still run under node, as written.
    let launch = npm.launch.as_ref().unwrap();
    assert_eq!(
        (launch.command.as_str(), launch.args.clone()),
        ("node", vec!["dist/index.js".to_string()])
    );
    assert!(npm.args.is_empty());
}
