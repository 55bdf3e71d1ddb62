//! `mcpevol export`: the stages of one workspace or of every server of a batch as runnable
//! folders (the files at the stage's tag, with the workspace's installed dependencies linked),
//! and an `mcp.json` in the `mcpServers` format that MCP clients and agent harnesses read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Repository, TreeWalkMode, TreeWalkResult};
use serde::Serialize;

use crate::server::LaunchConfig;
use crate::server::launch::TMP_PLACEHOLDER;
use crate::workspace::Workspace;

pub const MCP_JSON: &str = "mcp.json";
/// Where `{tmp}` of a launch setting points in an export: one lasting folder per stage, since a
/// client starts the server itself and makes no fresh one.
pub const TMP_DIR: &str = ".tmp";

/// One server entry of `mcp.json`. `cwd` is honoured by most clients; launch arguments that
/// name files are absolute, so clients that ignore it still find them.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct McpServer {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct McpJson {
    #[serde(rename = "mcpServers")]
    pub mcp_servers: BTreeMap<String, McpServer>,
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{}", missing(.0))]
    MissingStages(Vec<String>),
    #[error("{} exists and is not empty; export into a new or empty folder", .0.display())]
    NotEmpty(PathBuf),
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error(transparent)]
    Server(#[from] crate::server::ServerError),
    #[error("cannot {action} in {}: {source}", root.display())]
    Git {
        action: String,
        root: PathBuf,
        source: git2::Error,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn missing(stages: &[String]) -> String {
    match stages {
        [one] => format!("{one}; nothing was exported"),
        _ => format!(
            "{} stages are missing; nothing was exported:\n    {}",
            stages.len(),
            stages.join("\n    ")
        ),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Exports `stages` of each `(name, workspace folder)` into `into`; every stage must exist in
/// every workspace, which is checked before anything is written.
pub fn export(
    workspaces: &[(String, PathBuf)],
    stages: &[String],
    into: &Path,
) -> Result<McpJson, ExportError> {
    let mut picked = Vec::new();
    let mut missing = Vec::new();
    for (name, dir) in workspaces {
        let ws = Workspace::open(dir)?;
        for stage in stages {
            match ws.resolve(stage) {
                Ok(commit) => picked.push((name, dir, stage, commit)),
                Err(_) => {
                    let reached = ws.latest()?.map_or("none".into(), |v| v.tag.to_string());
                    missing.push(format!(
                        "server `{name}` has no tag `{stage}` (its latest version is {reached})"
                    ));
                }
            }
        }
    }
    if !missing.is_empty() {
        return Err(ExportError::MissingStages(missing));
    }
    if std::fs::read_dir(into).is_ok_and(|mut d| d.next().is_some()) {
        return Err(ExportError::NotEmpty(into.to_path_buf()));
    }
    std::fs::create_dir_all(into).map_err(io(into))?;
    let into = into.canonicalize().map_err(io(into))?;
    let mut mcp = McpJson {
        mcp_servers: BTreeMap::new(),
    };
    for (name, dir, stage, commit) in picked {
        let key = format!("{name}@{stage}");
        let folder = into.join(&key);
        write_tree(dir, &commit, &folder)?;
        for linked in ["node_modules", crate::workspace::pypi::VENV_LINK] {
            let installed = dir.join(linked);
            if installed.is_dir() {
                let target = installed.canonicalize().map_err(io(&installed))?;
                std::os::unix::fs::symlink(&target, folder.join(linked)).map_err(io(&folder))?;
            }
        }
        let tmp = into.join(TMP_DIR).join(&key);
        mcp.mcp_servers.insert(
            key,
            entry(
                &LaunchConfig::for_package(&folder).map_err(crate::server::ServerError::from)?,
                &folder,
                &tmp,
            )?,
        );
    }
    let text = serde_json::to_string_pretty(&mcp).expect("mcp.json serializes") + "\n";
    let path = into.join(MCP_JSON);
    std::fs::write(&path, text).map_err(io(&path))?;
    Ok(mcp)
}

/// The client's view of a launch: file arguments made absolute, `{tmp}` a lasting folder.
fn entry(config: &LaunchConfig, folder: &Path, tmp: &Path) -> Result<McpServer, ExportError> {
    let tmp_text = tmp.display().to_string();
    let uses_tmp = config
        .args
        .iter()
        .chain(config.env.values())
        .any(|v| v.contains(TMP_PLACEHOLDER));
    if uses_tmp {
        std::fs::create_dir_all(tmp).map_err(io(tmp))?;
    }
    let browser = crate::server::browser::for_clients();
    let fill = |v: &str| {
        v.replace(TMP_PLACEHOLDER, &tmp_text)
            .replace(crate::server::browser::BROWSER_PLACEHOLDER, &browser)
    };
    let args = config
        .args
        .iter()
        .map(|a| {
            let file = folder.join(a);
            if !a.starts_with('-') && !Path::new(a).is_absolute() && file.exists() {
                file.display().to_string()
            } else {
                fill(a)
            }
        })
        .collect();
    // A program in the package (`.venv/bin/python`) and its module path, made absolute.
    let command = if config.command.contains('/') && Path::new(&config.command).is_relative() {
        folder.join(&config.command).display().to_string()
    } else {
        config.command.clone()
    };
    let absolute_paths = |v: &str| {
        v.split(':')
            .map(|p| match p {
                "" => String::new(),
                p if Path::new(p).is_relative() => folder.join(p).display().to_string(),
                p => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join(":")
    };
    Ok(McpServer {
        command,
        args,
        env: config
            .env
            .iter()
            .map(|(k, v)| match k.as_str() {
                "PYTHONPATH" => (k.clone(), absolute_paths(&fill(v))),
                _ => (k.clone(), fill(v)),
            })
            .collect(),
        cwd: folder.display().to_string(),
    })
}

/// Writes the files of `commit` (modes and links kept) into the new folder `to`.
fn write_tree(root: &Path, commit: &str, to: &Path) -> Result<(), ExportError> {
    let git = |action: &str| {
        let action = action.to_string();
        move |source| ExportError::Git {
            action,
            root: root.to_path_buf(),
            source,
        }
    };
    let repo = Repository::open(root).map_err(git("open the repository"))?;
    let tree = repo
        .revparse_single(commit)
        .and_then(|o| o.peel_to_tree())
        .map_err(git(&format!("read the tree of {commit}")))?;
    std::fs::create_dir_all(to).map_err(io(to))?;
    let mut failure = None;
    let walked = tree.walk(TreeWalkMode::PreOrder, |parent, entry| {
        let path = to.join(parent).join(entry.name().unwrap_or_default());
        let written = match entry.kind() {
            Some(ObjectType::Tree) => std::fs::create_dir_all(&path).map_err(io(&path)),
            Some(ObjectType::Blob) => write_blob(&repo, entry, &path),
            _ => Ok(()), // submodules are not part of a package
        };
        match written {
            Ok(()) => TreeWalkResult::Ok,
            Err(e) => {
                failure = Some(e);
                TreeWalkResult::Abort
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    walked.map_err(git("walk the tree"))
}

fn write_blob(repo: &Repository, entry: &git2::TreeEntry, path: &Path) -> Result<(), ExportError> {
    use std::os::unix::fs::PermissionsExt;
    let blob = repo
        .find_blob(entry.id())
        .map_err(|source| ExportError::Git {
            action: format!("read {}", path.display()),
            root: repo.path().to_path_buf(),
            source,
        })?;
    if entry.filemode() == 0o120000 {
        let target = String::from_utf8_lossy(blob.content()).into_owned();
        return std::os::unix::fs::symlink(target, path).map_err(io(path));
    }
    std::fs::write(path, blob.content()).map_err(io(path))?;
    let mode = if entry.filemode() == 0o100755 {
        0o755
    } else {
        0o644
    };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io(path))
}
