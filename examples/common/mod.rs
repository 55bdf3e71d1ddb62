//! What the measuring examples share: a catalog and seeds from the command line, and every
//! server of the catalog evolved with the rules backend for each seed, a few at once.

use std::path::{Path, PathBuf};

use futures::StreamExt;

use mcpevol::catalog::{Catalog, CatalogEntry as Entry};
use mcpevol::evolve::{self, Backend, EvolveOptions, RoundOutcome};
use mcpevol::init::{InitOptions, init};

/// Servers evolved at once: most of a round is waiting on node.
const PARALLEL: usize = 3;

/// A catalog (the first argument ending in `.toml`, else `servers-npm/servers.toml`) and the
/// seeds (the other arguments, else 2026, 1 and 2).
pub struct Sweep {
    pub dir: PathBuf,
    pub catalog: Catalog,
    pub seeds: Vec<u64>,
}

impl Sweep {
    pub fn from_args(mut args: Vec<String>) -> anyhow::Result<Sweep> {
        let catalog_path = match args.first() {
            Some(a) if a.ends_with(".toml") => PathBuf::from(args.remove(0)),
            _ => PathBuf::from("servers-npm/servers.toml"),
        };
        let seeds = if args.is_empty() {
            vec![2026, 1, 2]
        } else {
            args.iter().map(|s| s.parse()).collect::<Result<_, _>>()?
        };
        Ok(Sweep {
            dir: catalog_path
                .parent()
                .unwrap_or(Path::new("."))
                .to_path_buf(),
            catalog: Catalog::load(&catalog_path)?,
            seeds,
        })
    }

    /// One entry per package: launches of the same package evolve the same code. With
    /// `MCPEVOL_ONLY=id,id` set, only those entries.
    pub fn entries(&self) -> Vec<&Entry> {
        let only: Option<Vec<String>> = std::env::var("MCPEVOL_ONLY")
            .ok()
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
        let mut out: Vec<&Entry> = Vec::new();
        for e in &self.catalog.servers {
            if only.as_ref().is_some_and(|o| !o.contains(&e.id)) {
                continue;
            }
            if !out.iter().any(|x| x.package == e.package) {
                out.push(e);
            }
        }
        out
    }

    /// Inits and evolves every entry `rounds` rounds per seed under `scratch`, and hands each
    /// (server id, seed, workspace, outcome) to `done` as it finishes.
    #[allow(dead_code)] // each example uses one of the two
    pub fn evolve_all(
        &self,
        scratch: &Path,
        rounds: u32,
        done: impl FnMut(&str, u64, &Path, Result<Vec<RoundOutcome>, String>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.evolve_all_with(scratch, &|seed| EvolveOptions::new(rounds, seed), done)
    }

    /// [`Sweep::evolve_all`] with the options `options` gives for each seed.
    pub fn evolve_all_with(
        &self,
        scratch: &Path,
        options: &dyn Fn(u64) -> EvolveOptions,
        mut done: impl FnMut(&str, u64, &Path, Result<Vec<RoundOutcome>, String>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let rt = tokio::runtime::Runtime::new()?;
        let entries = self.entries();
        // A queue rather than chunks: one server whose calls all wait out their time limit
        // held up the two beside it and every chunk after.
        let runs = (self.seeds.iter()).flat_map(|seed| entries.iter().map(move |e| (*seed, *e)));
        let runs = runs.map(|(seed, entry)| {
            let work = scratch.join(format!("{}-{seed}", entry.id));
            let source = entry.package_dir(&self.dir).to_string_lossy().into_owned();
            async move {
                let init_opts = InitOptions::new(Some(entry.launch_config(&self.dir)));
                let opts = options(seed);
                let result = async {
                    init(&source, &work, &init_opts)
                        .await
                        .map_err(|e| e.to_string())?;
                    evolve::evolve(&work, &Backend::Rules, &opts, |_| {})
                        .await
                        .map_err(|e| e.to_string())
                }
                .await;
                (entry.id.clone(), seed, work, result)
            }
        });
        let mut finished = futures::stream::iter(runs).buffer_unordered(PARALLEL);
        rt.block_on(async {
            while let Some((id, seed, work, result)) = finished.next().await {
                done(&id, seed, &work, result)?;
            }
            anyhow::Ok(())
        })?;
        Ok(())
    }
}
