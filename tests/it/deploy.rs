//! deploy/: the Kubernetes manifests and Slurm scripts pass their tools' own validators
//! (deploy/check.sh), and the Slurm array script, run with the variables Slurm sets for each
//! array task, then the merge script, evolve a whole manifest.

use crate::common;

use std::process::Command;

use serde_json::Value;

#[test]
fn the_deploy_files_pass_kubernetes_validate_shellcheck_and_sbatch() {
    let out = Command::new(common::repo().join("deploy/check.sh"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.matches(" passed for resource ").count(), 3, "{text}");
    assert_eq!(
        text.matches("sbatch's option parsing fine").count(),
        2,
        "{text}"
    );
}

#[test]
fn the_slurm_array_script_run_as_three_array_tasks_then_merged_evolves_every_server() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = |script: &str, task: Option<u32>| {
        let mut cmd = Command::new("bash");
        cmd.arg(common::repo().join("deploy/slurm").join(script))
            .current_dir(common::repo())
            .env("MCPEVOL", common::bin())
            .env("MANIFEST", "fixtures/batch.toml")
            .env("OUT", &out)
            .env("ROUNDS", "2");
        if let Some(task) = task {
            // As Slurm sets them for `--array=1-3` (ids need not start at 0).
            cmd.env("SLURM_ARRAY_TASK_ID", (task + 1).to_string())
                .env("SLURM_ARRAY_TASK_MIN", "1")
                .env("SLURM_ARRAY_TASK_COUNT", "3")
                .env("SLURM_CPUS_PER_TASK", "1");
        }
        let o = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "{script} {task:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    for task in 0..3 {
        run("mcpevol-batch.sbatch", Some(task));
    }
    run("merge.sbatch", None);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("merged/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["totals"]["servers"], 4, "{summary}");
    assert_eq!(summary["totals"]["complete"], 4, "{summary}");
    assert_eq!(summary["shards"].as_array().unwrap().len(), 3);
}
