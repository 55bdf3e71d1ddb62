#!/usr/bin/env bash
# Validates deploy/ with the tools' own validators, installing them when missing:
# - Kubernetes manifests: kubernetes-validate (PyPI; the API's OpenAPI schemas, bundled, so no
#   cluster is needed; `kubectl apply --dry-run=client` needs one for its schemas), strict mode:
#   unknown fields are errors.
# - Slurm scripts: `bash -n`, shellcheck, and sbatch itself (Debian's slurm-client): with a
#   one-node slurm.conf and no controller running, `sbatch --test-only` parses every #SBATCH
#   option and stops at "Unable to contact slurm controller"; a bad option fails before that.
set -euo pipefail
cd "$(dirname "$0")"

K8S_VERSION=${K8S_VERSION:-1.32.0}
if ! command -v kubernetes-validate >/dev/null; then
  pip install --quiet kubernetes-validate >&2
fi
kubernetes-validate --strict --kubernetes-version "$K8S_VERSION" kubernetes/*.yaml

apt_install() {
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; } >&2
}
command -v shellcheck >/dev/null || apt_install shellcheck
command -v sbatch >/dev/null || apt_install slurm-client
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
printf '%s\n' "ClusterName=check" "SlurmctldHost=localhost" \
  "NodeName=localhost CPUs=2 State=UNKNOWN" "PartitionName=debug Nodes=localhost Default=YES State=UP" >"$conf"
for script in slurm/*.sbatch; do
  bash -n "$script"
  shellcheck "$script"
  parsed=$(SLURM_CONF=$conf timeout 60 sbatch --test-only "$script" 2>&1 || true)
  if ! grep -q "Unable to contact slurm controller" <<<"$parsed"; then
    echo "$script: sbatch rejects it: $parsed" >&2
    exit 1
  fi
  echo "$script: bash -n, shellcheck and sbatch's option parsing fine"
done
