//! Applying arbitrary hunks to arbitrary files, and the hunk the rules backend makes for a byte
//! range (`hunk_for`), which must change exactly that range when applied.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcpevol::hunks::{self, Hunk};

/// The files of the package every input starts from; hunks may name others (which do not exist,
/// or are refused as outside the package).
const FILES: [&str; 2] = ["a.js", "lib/b.ts"];

#[derive(Arbitrary, Debug)]
struct Input {
    a: String,
    b: String,
    hunks: Vec<(FileName, String, String)>,
    /// `hunk_for` on file a: a byte range (clamped to char boundaries) and its new text.
    range: (u16, u16),
    new: String,
}

#[derive(Arbitrary, Debug)]
enum FileName {
    Known(u8),
    Any(String),
}

fn package() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temp folder");
        std::fs::create_dir_all(dir.path().join("lib")).expect("lib/");
        dir
    })
    .path()
}

fn write(root: &Path, a: &str, b: &str) {
    std::fs::write(root.join(FILES[0]), a).expect("write a");
    std::fs::write(root.join(FILES[1]), b).expect("write b");
    let _ = std::fs::remove_file(root.join("new.js"));
}

fn floor(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fuzz_target!(|input: Input| {
    let root = package();
    write(root, &input.a, &input.b);
    let hunks: Vec<Hunk> = input
        .hunks
        .iter()
        .map(|(name, search, replace)| Hunk {
            file: match name {
                FileName::Known(i) => ["a.js", "lib/b.ts", "new.js"][usize::from(*i) % 3].into(),
                FileName::Any(s) => s.clone(),
            },
            search: search.clone(),
            replace: replace.clone(),
        })
        .collect();
    let known = hunks.iter().all(|h| ["a.js", "lib/b.ts", "new.js"].contains(&h.file.as_str()));
    match hunks::apply_in_memory(root, &hunks) {
        Ok(texts) if known => {
            let written = hunks::apply(root, &hunks).expect("what applies in memory is written");
            assert_eq!(written, texts.keys().cloned().collect::<Vec<_>>());
            for (file, text) in &texts {
                assert_eq!(&std::fs::read_to_string(root.join(file)).unwrap(), text);
            }
        }
        Ok(_) => {}
        Err(e) => drop(e.to_string()),
    }

    let text = &input.a;
    let (x, y) = (usize::from(input.range.0), usize::from(input.range.1));
    let (start, end) = (floor(text, x.min(y)), floor(text, x.max(y)));
    let hunk = hunks::hunk_for("a.js", text, start, end, &input.new);
    if hunk.search.is_empty() {
        return; // only for an empty file, where there is nothing to anchor
    }
    write(root, text, "");
    let expected = format!("{}{}{}", &text[..start], input.new, &text[end..]);
    hunks::apply(root, &[hunk.clone()]).unwrap_or_else(|e| panic!("{hunk:?}: {e}"));
    let got = std::fs::read_to_string(root.join("a.js")).unwrap();
    assert_eq!(got, expected, "{hunk:?} changed another place");
});
