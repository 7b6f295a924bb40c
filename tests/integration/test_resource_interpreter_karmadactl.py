"""The collection's UnitedDeployment scripts run through `karmadactl interpret` (built from the same
Karmada release) give what the offline lupa runtime gives, on the same sample objects. An error
karmadactl prints on stderr fails the test although its exit code is 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.stack.layout import layout

REPO_ROOT = Path(__file__).resolve().parents[2]
# The collection's module_utils import as ansible_collections.multicloud.federation.* from the .build
# tree (`make collection`); run alone, nothing else has put it on sys.path.
BUILD = REPO_ROOT / ".build"
if (BUILD / "ansible_collections" / "multicloud" / "federation").is_dir() and str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))
ROLE = REPO_ROOT / "roles" / "resource_interpreter"
SCRIPTS = {
    "replicaResource": ("interpretReplica", "get_replicas.lua"),
    "replicaRevision": ("reviseReplica", "revise_replica.lua"),
    "statusReflection": ("interpretStatus", "reflect_status.lua"),
    "statusAggregation": ("aggregateStatus", "aggregate_status.lua"),
    "healthInterpretation": ("interpretHealth", "interpret_health.lua"),
    "dependencyInterpretation": ("interpretDependency", "get_dependencies.lua"),
}
SAMPLES = yaml.safe_load((ROLE / "files" / "samples" / "uniteddeployment.yml").read_text())


def karmadactl() -> Path:
    binary = layout().binary("karmadactl")
    if not binary.exists():
        pytest.fail(f"{binary} is missing: run `make stack-build`")
    return binary


def parse_output(stdout: str) -> dict:
    """`---` / `# [i/n] name:` / YAML documents -> {name: value}."""
    results, name, lines = {}, None, []
    for line in stdout.splitlines() + ["---"]:
        if line == "---":
            if name is not None:
                results[name] = yaml.safe_load("\n".join(lines))
            name, lines = None, []
        elif line.startswith("# [") and name is None:
            name = line.split("] ", 1)[1].rstrip(":")
        else:
            lines.append(line)
    return results


def definition(api_version: str = "apps.kruise.io/v1beta1") -> dict:
    # Karmada picks a customization by the object's apiVersion: the target names the sample's.
    return {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": "declarative-configuration-uniteddeployment"},
            "spec": {"target": {"apiVersion": api_version, "kind": "UnitedDeployment"},
                     "customizations": {key: {"luaScript": (ROLE / "files" / "uniteddeployment" / f).read_text()}
                                        for key, (_op, f) in SCRIPTS.items()}}}


def test_check_passes(tmp_path):
    ric = tmp_path / "ric.yml"
    ric.write_text(yaml.safe_dump(definition()))
    # check=False: the assertion below shows karmadactl's output.
    result = subprocess.run([str(karmadactl()), "interpret", "-f", str(ric), "--check"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0 and "ERROR" not in result.stdout + result.stderr, result.stdout + result.stderr


@pytest.mark.parametrize("customization", sorted(SCRIPTS))
@pytest.mark.parametrize("sample", [s["name"] for s in SAMPLES])
def test_karmadactl_equals_lupa(tmp_path, customization, sample):
    from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.lua import (
        KarmadaLuaVM,
        load_samples,
        run_operation,
    )

    data = [s for s in load_samples(SAMPLES) if s["name"] == sample][0]
    operation, _file = SCRIPTS[customization]
    ric = tmp_path / "ric.yml"
    api_version = (data["desired"] or data["observed"])["apiVersion"]
    ric.write_text(yaml.safe_dump(definition(api_version)))
    argv = [str(karmadactl()), "interpret", "-f", str(ric), "--operation", operation]
    if customization in ("statusReflection", "healthInterpretation"):
        (tmp_path / "observed.yml").write_text(yaml.safe_dump(data["observed"]))
        argv += ["--observed-file", str(tmp_path / "observed.yml")]
    else:
        (tmp_path / "desired.yml").write_text(yaml.safe_dump(data["desired"]))
        argv += ["--desired-file", str(tmp_path / "desired.yml")]
    if customization == "replicaRevision":
        argv += ["--desired-replica", str(data["desired_replica"])]
    if customization == "statusAggregation" and data["status_items"]:
        # Without --status-file karmadactl runs AggregateStatus with no items (pkg/karmadactl/interpret/execute.go).
        (tmp_path / "status.yml").write_text(yaml.safe_dump_all(data["status_items"]))
        argv += ["--status-file", str(tmp_path / "status.yml")]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    expected = dict(run_operation(KarmadaLuaVM(), customization, definition(api_version)["spec"]["customizations"][customization]["luaScript"],
                                  desired=data["desired"], observed=data["observed"],
                                  status_items=data["status_items"], desired_replica=data["desired_replica"]))
    assert parse_output(result.stdout) == expected
