//! The syntax check of changed files before a server is started: tree-sitter finds no error or
//! missing node, and `node --check` accepts every changed JavaScript file.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::anchor::{self, grammar::Lang};

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{file}:{line}: syntax error: {message}")]
    Syntax {
        file: String,
        line: usize,
        message: String,
    },
    #[error("cannot read {file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("cannot run `node --check`: {0}")]
    Node(std::io::Error),
}

/// Checks each changed file that is JS/TS source; other files pass.
pub fn check_files(root: &Path, files: &[String]) -> Result<(), CheckError> {
    check_trees(root, files)?;
    NodeCheck::spawn(root, files)?.wait()
}

/// The tree-sitter half of the check: fast, in process.
pub fn check_trees(root: &Path, files: &[String]) -> Result<(), CheckError> {
    for file in files {
        let path = root.join(file);
        let Some(lang) = Lang::for_path(&path) else {
            continue;
        };
        if !path.is_file() {
            continue; // deleted
        }
        let src = std::fs::read_to_string(&path).map_err(|source| CheckError::Io {
            file: file.clone(),
            source,
        })?;
        check_tree(file, &src, lang)?;
    }
    Ok(())
}

/// `node --check` of every changed JavaScript file, all at once in the background: node's start
/// dominates the check, so the caller can overlap it with starting the server.
pub struct NodeCheck {
    running: Vec<(String, std::process::Child)>,
}

impl NodeCheck {
    pub fn spawn(root: &Path, files: &[String]) -> Result<NodeCheck, CheckError> {
        let mut running = Vec::new();
        for file in files {
            let path = root.join(file);
            if Lang::for_path(&path) != Some(Lang::JavaScript) || !path.is_file() {
                continue;
            }
            let child = Command::new("node")
                .arg("--check")
                .arg(file)
                .current_dir(root)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(CheckError::Node)?;
            running.push((file.clone(), child));
        }
        Ok(NodeCheck { running })
    }

    /// The first failure, in file order.
    pub fn wait(self) -> Result<(), CheckError> {
        let mut first = Ok(());
        for (file, child) in self.running {
            let out = child.wait_with_output().map_err(CheckError::Node)?;
            if !out.status.success() && first.is_ok() {
                first = Err(node_error(&file, &String::from_utf8_lossy(&out.stderr)));
            }
        }
        first
    }
}

fn check_tree(file: &str, src: &str, lang: Lang) -> Result<(), CheckError> {
    let Some(tree) = anchor::parse(src, lang) else {
        return Err(CheckError::Syntax {
            file: file.into(),
            line: 1,
            message: "the parser gave up".into(),
        });
    };
    let Some(node) = anchor::facts::first_error(tree.root_node()) else {
        return Ok(());
    };
    let line = node.start_position().row + 1;
    let what = if node.is_missing() {
        format!("missing `{}`", node.kind())
    } else {
        "unexpected text".to_string()
    };
    let shown = src.lines().nth(line - 1).unwrap_or("").trim();
    let shown: String = shown.chars().take(160).collect();
    Err(CheckError::Syntax {
        file: file.into(),
        line,
        message: format!("{what} in: {shown}"),
    })
}

fn node_error(file: &str, stderr: &str) -> CheckError {
    // node prints "file:LINE" first, then the line, a caret, and "SyntaxError: ...".
    let line = stderr
        .lines()
        .next()
        .and_then(|l| l.rsplit(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(1);
    let message = stderr
        .lines()
        .find(|l| l.contains("Error"))
        .unwrap_or("node --check failed")
        .trim()
        .to_string();
    CheckError::Syntax {
        file: file.into(),
        line,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, text: &str) -> Result<(), CheckError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        check_files(dir.path(), &[name.to_string()])
    }

    #[test]
    fn valid_javascript_and_typescript_pass() {
        check("a.js", "const x = { a: 1 };\nexport default x;\n").unwrap();
        check("a.ts", "const x: number = 1;\nexport default x;\n").unwrap();
    }

    #[test]
    fn a_broken_file_is_reported_with_its_line() {
        let err = check("a.js", "const ok = 1;\nconst x = { a: 1 ;\n").unwrap_err();
        assert!(err.to_string().starts_with("a.js:2: syntax error"), "{err}");
    }

    #[test]
    fn node_check_catches_what_the_grammar_accepts() {
        // Valid to tree-sitter, an early error to node: a duplicate `let` declaration.
        let err = check("a.js", "let a = 1;\nlet a = 2;\n").unwrap_err();
        assert!(err.to_string().contains("SyntaxError"), "{err}");
    }
}
