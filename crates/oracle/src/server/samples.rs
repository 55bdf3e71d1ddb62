//! Small files of common kinds put in every server start's `{tmp}/samples/`, so that a tool
//! that reads, converts or lints a file has one to work on (discovery tries them for path
//! parameters). The same bytes at every start: answers about them compare across versions.

use std::path::Path;

/// The folder under `{tmp}` that holds them.
pub const SAMPLES_DIR: &str = "samples";

/// Each sample's file name and bytes (`crates/oracle/src/server/samples/`).
pub const SAMPLES: &[(&str, &[u8])] = &[
    ("sample.txt", include_bytes!("samples/sample.txt")),
    ("sample.md", include_bytes!("samples/sample.md")),
    ("sample.json", include_bytes!("samples/sample.json")),
    ("sample.csv", include_bytes!("samples/sample.csv")),
    ("sample.html", include_bytes!("samples/sample.html")),
    ("sample.js", include_bytes!("samples/sample.js")),
    ("sample.py", include_bytes!("samples/sample.py")),
    ("sample.pdf", include_bytes!("samples/sample.pdf")),
    ("sample.png", include_bytes!("samples/sample.png")),
];

/// Writes the samples into `data/samples/`.
pub fn write(data: &Path) -> std::io::Result<()> {
    let dir = data.join(SAMPLES_DIR);
    std::fs::create_dir(&dir)?;
    for (name, bytes) in SAMPLES {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

/// The sample a path parameter most likely wants, by the words of the tool, the parameter and
/// its description (`lint` or `javascript`: the `.js`; `pdf`: the `.pdf`); then the text file.
pub fn fitting(words: &[String]) -> Vec<&'static str> {
    const KINDS: &[(&[&str], &str)] = &[
        (&["pdf"], "sample.pdf"),
        (&["csv", "spreadsheet"], "sample.csv"),
        (&["json"], "sample.json"),
        (&["markdown", "md"], "sample.md"),
        (&["html", "htm", "webpage"], "sample.html"),
        (&["python", "py"], "sample.py"),
        (
            &["javascript", "js", "lint", "eslint", "script"],
            "sample.js",
        ),
        (
            &["image", "png", "picture", "photo", "screenshot"],
            "sample.png",
        ),
    ];
    let mut out: Vec<&'static str> = KINDS
        .iter()
        .filter(|(keys, _)| words.iter().any(|w| keys.contains(&w.as_str())))
        .map(|(_, file)| *file)
        .collect();
    out.push("sample.txt");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_is_written_and_a_pdf_tool_gets_the_pdf_first() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path()).unwrap();
        for (name, bytes) in SAMPLES {
            assert_eq!(
                std::fs::read(dir.path().join(SAMPLES_DIR).join(name)).unwrap(),
                *bytes
            );
        }
        let words = |s: &[&str]| s.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            fitting(&words(&["read", "pdf", "path"])),
            ["sample.pdf", "sample.txt"]
        );
        assert_eq!(
            fitting(&words(&["lint", "files"])),
            ["sample.js", "sample.txt"]
        );
        assert_eq!(fitting(&words(&["read", "file"])), ["sample.txt"]);
    }
}
