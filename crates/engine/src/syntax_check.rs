//! The syntax check of changed files before a server is started: tree-sitter finds no error or
//! missing node that the edit introduced, `node --check` accepts every changed JavaScript
//! file as a whole, and the workspace's Python interpreter compiles every changed Python file.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::process::{Command, Stdio};

use tree_sitter::Node;

use mcpevol_anchor::{self as anchor, grammar::Lang};

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
    #[error("cannot run `{python}` to compile the changed Python files: {source}")]
    Python {
        python: String,
        source: std::io::Error,
    },
}

/// How much of a long line an error message quotes on each side of the error.
const CONTEXT_CHARS: usize = 80;

/// The text of the files an edit touches, as they were before it. The grammar is judged on the
/// edit, not on the file: bundles and new syntax hold constructs tree-sitter reports as errors
/// while node runs them, and those were there before the edit.
#[derive(Debug, Default, Clone)]
pub struct Before {
    texts: BTreeMap<String, String>,
}

impl Before {
    /// Reads `files` under `root` before they are changed. A file that does not exist yet (or
    /// cannot be read) counts as new: every error in it is the edit's.
    pub fn read<'a>(root: &Path, files: impl IntoIterator<Item = &'a str>) -> Before {
        let texts = files
            .into_iter()
            .filter_map(|f| Some((f.to_string(), std::fs::read_to_string(root.join(f)).ok()?)))
            .collect();
        Before { texts }
    }

    fn text(&self, file: &str) -> Option<&str> {
        self.texts.get(file).map(String::as_str)
    }
}

/// Checks each changed file that is JS/TS source against its text before the edit; other
/// files pass.
pub fn check_files(root: &Path, files: &[String], before: &Before) -> Result<(), CheckError> {
    check_trees(root, files, before)?;
    NodeCheck::spawn(root, files)?.wait()
}

/// The tree-sitter half of the check: fast, in process. It fails on error and missing nodes
/// the edit introduced: ones overlapping a changed byte range, or more of them than before.
pub fn check_trees(root: &Path, files: &[String], before: &Before) -> Result<(), CheckError> {
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
        check_tree(file, before.text(file), &src, lang)?;
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
        for file in files {
            let path = root.join(file);
            if Lang::for_path(&path) == Some(Lang::Python) && path.is_file() {
                running.push((file.clone(), python_compile(root, file)?));
            }
        }
        Ok(NodeCheck { running })
    }

    /// The first failure, in file order.
    pub fn wait(self) -> Result<(), CheckError> {
        let mut first = Ok(());
        for (file, child) in self.running {
            let out = child.wait_with_output().map_err(CheckError::Node)?;
            if !out.status.success() && first.is_ok() {
                let stderr = String::from_utf8_lossy(&out.stderr);
                first = Err(if file.ends_with(".py") {
                    python_error(&file, &stderr)
                } else {
                    node_error(&file, &stderr)
                });
            }
        }
        first
    }
}

fn check_tree(file: &str, old: Option<&str>, src: &str, lang: Lang) -> Result<(), CheckError> {
    let gave_up = || CheckError::Syntax {
        file: file.into(),
        line: 1,
        message: "the parser gave up".into(),
    };
    let tree = anchor::parse(src, lang).ok_or_else(gave_up)?;
    let errors = error_nodes(tree.root_node());
    if errors.is_empty() {
        return Ok(());
    }
    let (old_count, changed) = match old {
        Some(old) => {
            let old_tree = anchor::parse(old, lang).ok_or_else(gave_up)?;
            (
                error_nodes(old_tree.root_node()).len(),
                changed_ranges(old, src),
            )
        }
        // A new file: all of it is the edit.
        None => (0, std::iter::once(0..src.len()).collect()),
    };
    let touches = |n: &Node| {
        changed
            .iter()
            .any(|c| n.start_byte() <= c.end && c.start <= n.end_byte())
    };
    let introduced = errors.iter().find(|n| touches(n)).or_else(|| {
        // More errors than before, none at the edit: error recovery placed the new one further
        // on (a missing `}` shows where the parser noticed). Name the first one after the edit.
        let first_change = changed.first().map_or(0, |c| c.start);
        (errors.len() > old_count).then(|| {
            errors
                .iter()
                .find(|n| n.end_byte() >= first_change)
                .unwrap_or(&errors[0])
        })
    });
    let Some(node) = introduced else {
        return Ok(());
    };
    let line = node.start_position().row + 1;
    let what = if node.is_missing() {
        format!("missing `{}`", node.kind())
    } else {
        let text = one_line(&src[node.byte_range()], 40);
        format!("unexpected `{text}`")
    };
    let before = if old_count > 0 {
        format!(
            " ({} such node(s) now, {old_count} before the edit)",
            errors.len()
        )
    } else {
        String::new()
    };
    Err(CheckError::Syntax {
        file: file.into(),
        line,
        message: format!(
            "{what}, introduced by the edit{before}, in: {}",
            context(src, node.start_byte())
        ),
    })
}

/// Every error and missing node of a tree, in source order.
fn error_nodes(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            out.push(node);
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out
}

/// The byte ranges of `new` that differ from `old`; an insertion or deletion is a range too
/// (possibly empty, at the place of the change).
fn changed_ranges(old: &str, new: &str) -> Vec<Range<usize>> {
    anchor::changes::changes(old, new)
        .into_iter()
        .map(|c| c.new)
        .collect()
}

/// The line around byte `at`, cut to a window around it when the line is long (minified code
/// is one line of hundreds of kilobytes).
fn context(src: &str, at: usize) -> String {
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = src[at..].find('\n').map_or(src.len(), |i| at + i);
    let (head, tail) = (&src[start..at], &src[at..end]);
    let head_chars = head.chars().count();
    let mut shown = String::new();
    if head_chars > CONTEXT_CHARS {
        shown.push('…');
    }
    shown.extend(head.chars().skip(head_chars.saturating_sub(CONTEXT_CHARS)));
    shown.extend(tail.chars().take(CONTEXT_CHARS));
    if tail.chars().nth(CONTEXT_CHARS).is_some() {
        shown.push('…');
    }
    shown.trim().to_string()
}

/// A short one-line quote of a node's text.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        flat.chars().take(max).collect::<String>() + "…"
    } else {
        flat
    }
}

/// Compiles one Python file with the interpreter the server runs with (the workspace's
/// environment, else `python3`), as `py_compile` does but writing no `.pyc`: the grammar of a
/// release's Python is the interpreter's, which tree-sitter only approximates.
fn python_compile(root: &Path, file: &str) -> Result<std::process::Child, CheckError> {
    let venv = root.join(crate::workspace::pypi::VENV_PYTHON);
    let python = if venv.exists() {
        std::path::absolute(&venv)
            .unwrap_or(venv)
            .display()
            .to_string()
    } else {
        "python3".to_string()
    };
    Command::new(&python)
        .args([
            "-c",
            "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec', dont_inherit=True)",
            file,
        ])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| CheckError::Python { python, source })
}

/// Python's traceback ends with `File "x.py", line N` and then `SyntaxError: ...` (or
/// `IndentationError`, `TabError`).
fn python_error(file: &str, stderr: &str) -> CheckError {
    let line = stderr
        .lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix(&format!("File \"{file}\", line ")))
        .find_map(|n| n.split(',').next()?.trim().parse().ok())
        .unwrap_or(1);
    let message = stderr
        .lines()
        .rev()
        .find(|l| l.contains("Error"))
        .unwrap_or("the Python compiler refused it")
        .trim()
        .to_string();
    CheckError::Syntax {
        file: file.into(),
        line,
        message,
    }
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

    /// A construct node accepts and tree-sitter-javascript reports as an error: a tagged
    /// template with an escape that is not one (`\u` not followed by hex digits).
    const GRAMMAR_GAP: &str = "const p=String.raw`C:\\users\\${u}`;";

    /// Writes `before`, then `after` over it, and checks the change.
    fn check_edit(name: &str, before: Option<&str>, after: &str) -> Result<(), CheckError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        if let Some(text) = before {
            std::fs::write(&path, text).unwrap();
        }
        let old = Before::read(dir.path(), [name]);
        std::fs::write(&path, after).unwrap();
        check_files(dir.path(), &[name.to_string()], &old)
    }

    fn check(name: &str, text: &str) -> Result<(), CheckError> {
        check_edit(name, None, text)
    }

    #[test]
    fn a_python_edit_that_breaks_the_grammar_is_refused_at_its_line() {
        let before = "def f(x):\n    return x\n\n\ndef g():\n    return 2\n";
        let broken = "def f(x):\n    return x\n\n\ndef g(:\n    return 2\n";
        let err = check_edit("server.py", Some(before), broken).unwrap_err();
        assert!(matches!(err, CheckError::Syntax { line: 5, .. }), "{err}");
        check_edit("server.py", Some(before), &before.replace("2", "3")).unwrap();
    }

    /// tree-sitter-python accepts what the interpreter refuses: a `return` outside a function,
    /// a `nonlocal` at module level. Only compiling the file finds these.
    #[test]
    fn python_that_parses_but_does_not_compile_is_refused_by_the_interpreter() {
        let before = "x = 1\n";
        let after = "x = 1\nreturn x\n";
        let err = check_edit("mod.py", Some(before), after).unwrap_err();
        let CheckError::Syntax { line, message, .. } = &err else {
            panic!("{err}");
        };
        assert_eq!(*line, 2, "{err}");
        assert!(message.contains("SyntaxError"), "{err}");
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

    #[test]
    fn the_grammar_gap_really_is_an_error_to_tree_sitter_and_valid_to_node() {
        let tree = anchor::parse(GRAMMAR_GAP, Lang::JavaScript).unwrap();
        assert!(!error_nodes(tree.root_node()).is_empty());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.js"), GRAMMAR_GAP).unwrap();
        NodeCheck::spawn(dir.path(), &["a.js".to_string()])
            .unwrap()
            .wait()
            .unwrap();
    }

    #[test]
    fn an_edit_beside_errors_the_original_already_had_passes() {
        let old = format!("{GRAMMAR_GAP}server.tool(\"a\",\"Old text\",()=>p);");
        let new = old.replace("Old text", "New, longer text");
        check_edit("a.js", Some(&old), &new).unwrap();
    }

    #[test]
    fn an_edit_that_breaks_syntax_in_a_file_with_old_errors_is_rejected_at_the_edit() {
        let old = format!("{GRAMMAR_GAP}server.tool(\"a\",\"Old text\",()=>p);");
        let new = old.replace("\"Old text\",", "\"Old text\" +,");
        let err = check_edit("a.js", Some(&old), &new)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("a.js:1: syntax error"), "{err}");
        assert!(err.contains("introduced by the edit"), "{err}");
        // The quote is the place of the edit, not the start of the (one-line) file.
        assert!(err.contains("Old text"), "{err}");
    }

    #[test]
    fn an_edit_whose_error_surfaces_away_from_it_is_rejected_by_the_count() {
        // Deleting a `}` makes the parser report a missing one where it notices, not at the
        // deletion; the count of error nodes grows all the same.
        let old =
            format!("{GRAMMAR_GAP}\nfunction f() {{\n  if (x) {{\n    y();\n  }}\n}}\nf();\n");
        let new = old.replacen("  }\n", "\n", 1);
        let err = check_edit("a.ts", Some(&old), &new)
            .unwrap_err()
            .to_string();
        assert!(err.contains("introduced by the edit"), "{err}");
    }

    #[test]
    fn errors_in_a_file_the_edit_creates_are_all_the_edits() {
        let err = check("new.js", GRAMMAR_GAP).unwrap_err().to_string();
        assert!(err.contains("introduced by the edit"), "{err}");
    }

    #[test]
    fn a_long_line_is_quoted_around_the_error_not_from_its_start() {
        let line = format!("{}x = {{ a: 1 ;{}", "a;".repeat(500), "b;".repeat(500));
        let quoted = context(&line, line.find("x =").unwrap());
        assert!(quoted.starts_with('…') && quoted.ends_with('…'), "{quoted}");
        assert!(quoted.contains("x = { a: 1 ;"), "{quoted}");
        assert!(quoted.chars().count() <= 2 * CONTEXT_CHARS + 2, "{quoted}");
    }
}
