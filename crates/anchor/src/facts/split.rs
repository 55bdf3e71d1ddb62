//! Cutting one large file into runs of top-level statements, so that its queries and its
//! reading run on every core: a 7.9 MB bundle spends about 0.4 s in query matching and 0.25 s
//! in reading the matches on one core.
//!
//! No JavaScript or TypeScript query matches the program node itself, so every match lies
//! inside one top-level statement and each run can be matched alone (`set_byte_range` over the
//! one tree). Reading is split too: the claims that cross statements (declared objects,
//! registrations) are made over the whole file first, and each run is read with them.

use std::ops::Range;

use tree_sitter::Node;

use super::FileFacts;

/// Below this size a file is read in one part: splitting would cost more than it saves.
const SPLIT_MIN_BYTES: usize = 256 * 1024;

/// How many parts a file of `len` bytes is read in: one per thread of the pool it runs on.
pub fn parts_for(len: usize) -> usize {
    if len < SPLIT_MIN_BYTES {
        1
    } else {
        rayon::current_num_threads().max(1)
    }
}

/// `parts` contiguous byte ranges covering the file, cut only between top-level statements and
/// of about equal size; fewer when the file has fewer statements.
pub fn ranges(root: Node, parts: usize) -> Vec<Range<usize>> {
    let end = root.end_byte();
    let share = end / parts.max(1);
    let mut cuts = vec![0];
    if parts > 1 {
        let mut cursor = root.walk();
        for child in root.children(&mut cursor) {
            let (start, last) = (child.start_byte(), cuts[cuts.len() - 1]);
            if cuts.len() < parts && start > last && start - last >= share {
                cuts.push(start);
            }
        }
    }
    cuts.push(end);
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

impl FileFacts {
    /// Adds the facts of the part of the file that follows this one.
    pub(super) fn append(&mut self, other: FileFacts) {
        // Destructured so that a new field cannot be forgotten here.
        let FileFacts {
            candidates,
            dispatches,
            constants,
            texts,
            schemas,
            schema_aliases,
            param_schemas,
            array_refs,
            functions,
            name_tables,
            registering_fns,
            helper_uses,
            imports,
            computes_imports,
            uncalled,
            warnings,
        } = other;
        self.candidates.extend(candidates);
        self.dispatches.extend(dispatches);
        self.constants.extend(constants);
        self.texts.extend(texts);
        self.schemas.extend(schemas);
        self.schema_aliases.extend(schema_aliases);
        self.param_schemas.extend(param_schemas);
        self.array_refs.extend(array_refs);
        self.functions.extend(functions);
        self.name_tables.extend(name_tables);
        self.registering_fns.extend(registering_fns);
        self.helper_uses.extend(helper_uses);
        self.imports.extend(imports);
        self.computes_imports |= computes_imports;
        self.uncalled.extend(uncalled);
        self.warnings.extend(warnings);
    }
}
