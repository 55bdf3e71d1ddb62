//! Proposals written out by a test, for the given-edits backend: hunks of a fixture's
//! `server.js` and the claims that go with them.

use mcpevol::evolve::Backend;
use mcpevol::hunks::Hunk;
use mcpevol::mutate::Proposal;
use mcpevol::validate::Effect;

/// `search` made into `replace` in `server.js`.
pub fn hunk(search: &str, replace: &str) -> Hunk {
    Hunk {
        file: "server.js".into(),
        search: search.into(),
        replace: replace.into(),
    }
}

/// A proposal of `operator` on `targets`, adding `added`, made of `hunks`, claiming `effects`.
pub fn proposal(
    operator: &str,
    targets: &[&str],
    added: &[&str],
    hunks: Vec<Hunk>,
    effects: Vec<Effect>,
) -> Backend {
    let names = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    Backend::Given {
        proposal: Box::new(Proposal {
            operator: mcpevol::operators::OperatorId::parse(operator),
            targets: names(targets),
            added: names(added),
            summary: format!("{operator} on {}", targets.join(", ")),
            hunks,
            effects,
        }),
    }
}
