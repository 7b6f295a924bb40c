"""Tests of the Kruise chart assembly (tests/stack/chart.py).

The pure transformations are tested on small documents. The assembled charts are rendered with the
real ``helm template`` built by the stack (layout().binary("helm")); a missing helm fails these
tests rather than skipping them, because the chart is only proven by Helm rendering it.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from tests.stack import chart
from tests.stack.layout import layout

KRUISE_VERSION = layout().versions["kruise"]["version"]
MODULE_CONFIG = (
    Path(os.environ.get("GOMODCACHE") or Path.home() / "go" / "pkg" / "mod")
    / "github.com"
    / "openkruise"
    / f"kruise@{KRUISE_VERSION}"
    / "config"
)
VIRTUAL_KUBELET_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}
            ]
        }
    }
}


# ---------------------------------------------------------------------------------------------
# Pure functions.
# ---------------------------------------------------------------------------------------------


def test_name_prefix_renames_objects_and_their_references():
    binding = {
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "manager-rolebinding"},
        "roleRef": {"kind": "ClusterRole", "name": "manager-role"},
        "subjects": [
            {"kind": "ServiceAccount", "name": "manager", "namespace": "system"},
            {"kind": "Group", "name": "system:masters"},
        ],
    }
    out = chart.apply_name_prefix(binding)
    assert out["metadata"]["name"] == "kruise-manager-rolebinding"
    assert out["roleRef"]["name"] == "kruise-manager-role"
    assert out["subjects"][0]["name"] == "kruise-manager"
    assert out["subjects"][1]["name"] == "system:masters"
    assert binding["metadata"]["name"] == "manager-rolebinding", "the input must not be modified"

    webhook = {
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "validating-webhook-configuration"},
        "webhooks": [{"name": "vpod.kb.io", "clientConfig": {"service": {"name": "webhook-service", "path": "/p"}}}],
    }
    out = chart.apply_name_prefix(webhook)
    assert out["metadata"]["name"] == "kruise-validating-webhook-configuration"
    assert out["webhooks"][0]["clientConfig"]["service"]["name"] == "kruise-webhook-service"
    assert out["webhooks"][0]["name"] == "vpod.kb.io"


@pytest.mark.parametrize("kind", ["CustomResourceDefinition", "Namespace"])
def test_name_prefix_skips_the_kinds_kustomize_skips(kind):
    doc = {"kind": kind, "metadata": {"name": "uniteddeployments.apps.kruise.io"}}
    assert chart.apply_name_prefix(doc)["metadata"]["name"] == "uniteddeployments.apps.kruise.io"


def test_namespace_placement():
    role = chart.apply_namespace({"kind": "Role", "metadata": {"name": "r"}}, "ns1")
    assert role["metadata"]["namespace"] == "ns1"
    cluster_role = chart.apply_namespace({"kind": "ClusterRole", "metadata": {"name": "r", "namespace": "system"}}, "ns1")
    assert "namespace" not in cluster_role["metadata"]
    binding = chart.apply_namespace(
        {
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "b"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "system"}, {"kind": "User", "name": "u"}],
        },
        "ns1",
    )
    assert "namespace" not in binding["metadata"]
    assert binding["subjects"][0]["namespace"] == "ns1"
    assert "namespace" not in binding["subjects"][1]
    webhook = chart.apply_namespace(
        {
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "m"},
            "webhooks": [{"name": "a", "clientConfig": {"service": {"name": "s", "namespace": "system"}}}],
        },
        "ns1",
    )
    assert webhook["webhooks"][0]["clientConfig"]["service"]["namespace"] == "ns1"


def test_strategic_merge_merges_webhooks_by_name_and_replaces_selectors():
    base = {
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "m"},
        "webhooks": [
            {"name": "a", "failurePolicy": "Fail", "namespaceSelector": {"matchExpressions": [{"key": "x"}]}},
            {"name": "b", "failurePolicy": "Fail"},
        ],
    }
    patch = {
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "m"},
        "webhooks": [{"name": "a", "namespaceSelector": {"matchExpressions": [{"key": "control-plane"}]}}],
    }
    (merged,) = chart.apply_patches([base], [patch])
    assert merged["webhooks"][0] == {
        "name": "a",
        "failurePolicy": "Fail",
        "namespaceSelector": {"matchExpressions": [{"key": "control-plane"}]},
    }
    assert merged["webhooks"][1] == {"name": "b", "failurePolicy": "Fail"}


def test_patch_for_a_missing_document_is_an_error():
    with pytest.raises(chart.ChartAssemblyError, match="matches no document"):
        chart.apply_patches([{"kind": "A", "metadata": {"name": "x"}}], [{"kind": "A", "metadata": {"name": "y"}}])


def test_upstream_braces_are_escaped_and_placeholders_become_actions():
    placeholders = chart.Placeholders()
    doc = {
        "kind": "ConfigMap",
        "metadata": {"name": placeholders.value("{{ .Values.name }}")},
        "data": {"text": "literal {{ not a template }}"},
        "spec": {placeholders.block(chart.with_block(".Values.extra", "extra")): None},
    }
    text = chart.dump_documents([doc], placeholders)
    assert "name: {{ .Values.name }}" in text
    assert 'literal {{ "{{" }} not a template }}' in text
    assert "  {{- with .Values.extra }}\n  extra:\n{{- toYaml . | nindent 4 }}\n  {{- end }}" in text
    assert "__HELM_" not in text


def test_unsubstituted_placeholder_is_an_error():
    placeholders = chart.Placeholders()
    key = placeholders.block(chart.with_block(".Values.x", "x"))
    # A block placeholder used as a value cannot be substituted.
    with pytest.raises(chart.ChartAssemblyError, match="not substituted"):
        chart.dump_documents([{"a": key}], placeholders)


def test_missing_config_is_a_clear_error(tmp_path):
    fake = SimpleNamespace(
        kruise_config=tmp_path / "nope",
        versions={"kruise": {"version": "v1.9.0"}},
        kruise_chart=tmp_path / "c",
        kruise_chart_no_affinity=tmp_path / "d",
    )
    with pytest.raises(chart.ChartAssemblyError, match="kruise manifests not found"):
        chart.assemble(fake, lambda _: None)
    assert not (tmp_path / "c").exists()


# ---------------------------------------------------------------------------------------------
# The assembled charts.
# ---------------------------------------------------------------------------------------------


def kruise_config() -> Path:
    for candidate in (layout().kruise_config, MODULE_CONFIG):
        if candidate.is_dir():
            return candidate
    pytest.fail(f"kruise config/ not found at {layout().kruise_config} or {MODULE_CONFIG}: run `make stack-build`")


@pytest.fixture(scope="module")
def charts(tmp_path_factory):
    root = tmp_path_factory.mktemp("charts")
    fake = SimpleNamespace(
        kruise_config=kruise_config(),
        versions=layout().versions,
        kruise_chart=root / f"kruise-{KRUISE_VERSION.lstrip('v')}",
        kruise_chart_no_affinity=root / f"kruise-noaffinity-{KRUISE_VERSION.lstrip('v')}",
    )
    messages: list[str] = []
    chart.assemble(fake, messages.append)
    return SimpleNamespace(layout=fake, messages=messages)


def test_assembly_is_idempotent_and_packages_each_chart(charts):
    assert all("written" in message for message in charts.messages)
    messages: list[str] = []
    chart.assemble(charts.layout, messages.append)
    assert messages == [
        f"chart {charts.layout.kruise_chart.name}: up to date",
        f"chart {charts.layout.kruise_chart_no_affinity.name}: up to date",
    ]
    for directory in (charts.layout.kruise_chart, charts.layout.kruise_chart_no_affinity):
        archive = directory.with_name(directory.name + ".tgz")
        with tarfile.open(archive) as tar:
            names = tar.getnames()
        assert "kruise/Chart.yaml" in names
        assert "kruise/templates/daemon.yaml" in names


def test_chart_yaml_has_upstream_kube_version(charts):
    meta = yaml.safe_load((charts.layout.kruise_chart / "Chart.yaml").read_text())
    assert meta["name"] == "kruise"
    assert meta["version"] == KRUISE_VERSION.lstrip("v")
    assert meta["kubeVersion"] == ">= 1.16.0-0"
    assert "kubeVersion: '>= 1.16.0-0'" in (charts.layout.kruise_chart / "Chart.yaml").read_text()


def test_charts_differ_only_in_the_daemon_affinity(charts):
    main = chart.read_chart_dir(charts.layout.kruise_chart)
    fixture = chart.read_chart_dir(charts.layout.kruise_chart_no_affinity)
    assert main.keys() == fixture.keys()
    assert [name for name in main if main[name] != fixture[name]] == ["templates/daemon.yaml"]
    assert ".Values.daemon.affinity" in main["templates/daemon.yaml"]
    assert ".Values.daemon.affinity" not in fixture["templates/daemon.yaml"]


def test_build_output_is_the_assembled_chart():
    """The stack build (python -m tests.stack build) wrote the charts this code assembles."""
    built = layout()
    config = kruise_config()
    for directory, honour in ((built.kruise_chart, True), (built.kruise_chart_no_affinity, False)):
        expected = chart.chart_files(config, KRUISE_VERSION, honour_affinity=honour)
        assert chart.read_chart_dir(directory) == expected, f"{directory} is missing or stale: run `make stack-build`"
        assert directory.with_name(directory.name + ".tgz").read_bytes() == chart.package(expected)


def test_build_output_is_the_assembled_runbook_chart():
    """The build's runbook chart (kruise_runbook, 1.5.1) is this code's assembly of that version's
    config/, which has no kruise-daemon-config Namespace (v1.6+); tests/integration/
    test_kruise_runbook_version.py renders it."""
    built = layout()
    config = built.kruise_runbook_config
    if not config.is_dir():
        pytest.fail(f"the runbook's kruise config/ is not at {config}: run `make stack-build`")
    assert not (config / "default" / "kruise-daemon-config.yaml").exists()
    version = built.versions["kruise_runbook"]["version"]
    expected = chart.chart_files(config, version, honour_affinity=True)
    directory = built.kruise_runbook_chart
    assert directory.name == f"kruise-{version.lstrip('v')}"
    assert chart.read_chart_dir(directory) == expected, f"{directory} is missing or stale: run `make stack-build`"
    assert directory.with_name(directory.name + ".tgz").read_bytes() == chart.package(expected)
    assert "kruise-daemon-config" not in expected["templates/namespace.yaml"]


# ---------------------------------------------------------------------------------------------
# Rendering with the real helm.
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def helm(tmp_path_factory):
    binary = layout().binary("helm")
    if not binary.exists():
        pytest.fail(f"helm not found at {binary}: run `make stack-build`")
    home = tmp_path_factory.mktemp("helm-home")
    env = {
        **os.environ,
        "HELM_CACHE_HOME": str(home / "cache"),
        "HELM_CONFIG_HOME": str(home / "config"),
        "HELM_DATA_HOME": str(home / "data"),
    }

    def run(chart_path: Path, *args: str, check: bool = True, command: tuple = ("template", "kruise")):
        result = subprocess.run(
            [str(binary), *command, str(chart_path), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,  # the caller's `check` decides, with helm's output in the message
        )
        if check and result.returncode != 0:
            pytest.fail(f"helm {command[0]} failed: {result.stderr}")
        return result

    return run


def render(helm, chart_path: Path, *args: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(helm(chart_path, "--namespace", "default", *args).stdout) if doc]


def one(docs: list[dict], kind: str, name: str) -> dict:
    found = [doc for doc in docs if doc["kind"] == kind and doc["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


@pytest.mark.parametrize("packaged", [False, True], ids=["directory", "tgz"])
def test_renders_every_part(helm, charts, packaged):
    path = charts.layout.kruise_chart
    if packaged:
        path = path.with_name(path.name + ".tgz")
    docs = render(helm, path)

    crds = [doc for doc in docs if doc["kind"] == "CustomResourceDefinition"]
    assert "uniteddeployments.apps.kruise.io" in {doc["metadata"]["name"] for doc in crds}
    assert len(crds) == len(chart.kustomization(kruise_config() / "crd")["resources"])

    namespace = one(docs, "Namespace", "kruise-system")
    assert namespace["metadata"]["labels"] == {"control-plane": "openkruise"}

    for kind, name in (
        ("MutatingWebhookConfiguration", "kruise-mutating-webhook-configuration"),
        ("ValidatingWebhookConfiguration", "kruise-validating-webhook-configuration"),
    ):
        configuration = one(docs, kind, name)
        assert configuration["webhooks"]
        for webhook in configuration["webhooks"]:
            service = webhook["clientConfig"]["service"]
            assert (service["name"], service["namespace"]) == ("kruise-webhook-service", "kruise-system")
    mutating = one(docs, "MutatingWebhookConfiguration", "kruise-mutating-webhook-configuration")
    assert "muniteddeployment.kb.io" in {webhook["name"] for webhook in mutating["webhooks"]}

    service = one(docs, "Service", "kruise-webhook-service")
    assert service["metadata"]["namespace"] == "kruise-system"
    assert service["spec"]["ports"] == [{"port": 443, "targetPort": 9876}]

    deployment = one(docs, "Deployment", "kruise-controller-manager")
    assert deployment["metadata"]["labels"] == {"control-plane": "controller-manager"}
    assert deployment["spec"]["replicas"] == 2
    manager = deployment["spec"]["template"]["spec"]["containers"][0]
    assert manager["image"] == f"openkruise/kruise-manager:{KRUISE_VERSION}"
    assert "--feature-gates=ImagePullJobGate=true" in manager["args"]

    daemonset = one(docs, "DaemonSet", "kruise-daemon")
    pod = daemonset["spec"]["template"]["spec"]
    assert pod["tolerations"] == [{"operator": "Exists"}]
    assert pod["hostNetwork"] is True
    assert "affinity" not in pod
    assert "--socket-file=" in pod["containers"][0]["args"]

    for kind, name in (("ServiceAccount", "kruise-manager"), ("ServiceAccount", "kruise-daemon")):
        assert one(docs, kind, name)["metadata"]["namespace"] == "kruise-system"
    binding = one(docs, "ClusterRoleBinding", "kruise-manager-rolebinding")
    assert binding["roleRef"]["name"] == "kruise-manager-role"
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "kruise-manager", "namespace": "kruise-system"}]
    one(docs, "ClusterRole", "kruise-manager-role")


def test_rendered_crds_equal_the_module_crds(helm, charts):
    rendered = {
        doc["metadata"]["name"]: doc for doc in render(helm, charts.layout.kruise_chart) if doc["kind"] == "CustomResourceDefinition"
    }
    base = kruise_config() / "crd" / "bases"
    for path in sorted(base.glob("*.yaml")):
        for doc in chart.load_documents(path):
            assert rendered[doc["metadata"]["name"]] == doc


def test_daemon_affinity_lands_in_the_daemonset_and_the_fixture_ignores_it(helm, charts):
    value = f"daemon.affinity={json.dumps(VIRTUAL_KUBELET_AFFINITY)}"
    docs = render(helm, charts.layout.kruise_chart, "--set-json", value)
    pod = one(docs, "DaemonSet", "kruise-daemon")["spec"]["template"]["spec"]
    assert pod["affinity"] == VIRTUAL_KUBELET_AFFINITY
    assert pod["tolerations"] == [{"operator": "Exists"}]

    fixture = render(helm, charts.layout.kruise_chart_no_affinity, "--set-json", value)
    pod = one(fixture, "DaemonSet", "kruise-daemon")["spec"]["template"]["spec"]
    assert "affinity" not in pod
    assert pod["tolerations"] == [{"operator": "Exists"}]
    assert pod["hostNetwork"] is True


def test_kube_version_constraint_is_enforced(helm, charts):
    old = helm(charts.layout.kruise_chart, "--kube-version", "1.15.0", check=False)
    assert old.returncode != 0
    assert "chart requires kubeVersion: >= 1.16.0-0 which is incompatible with Kubernetes v1.15.0" in old.stderr
    assert helm(charts.layout.kruise_chart, "--kube-version", layout().versions["kubernetes"]["version"]).returncode == 0
    assert helm(charts.layout.kruise_chart, "--kube-version", "1.32.9").returncode == 0


def test_values_drive_the_objects(helm, charts):
    docs = render(
        helm,
        charts.layout.kruise_chart,
        "--set",
        "installation.namespace=kruise-other,installation.createNamespace=false,manager.replicas=1",
        "--set",
        "daemon.socketFile=cri-dockerd.sock,manager.webhook.port=9443,manager.image.tag=v0.0.1",
    )
    assert not [doc for doc in docs if doc["kind"] == "Namespace"]
    deployment = one(docs, "Deployment", "kruise-controller-manager")
    assert deployment["metadata"]["namespace"] == "kruise-other"
    assert deployment["spec"]["replicas"] == 1
    manager = deployment["spec"]["template"]["spec"]["containers"][0]
    assert manager["image"] == "openkruise/kruise-manager:v0.0.1"
    assert "--leader-election-namespace=kruise-other" in manager["args"]
    assert {"name": "WEBHOOK_PORT", "value": "9443"} in manager["env"]
    assert one(docs, "Service", "kruise-webhook-service")["spec"]["ports"][0]["targetPort"] == 9443
    for webhook in one(docs, "ValidatingWebhookConfiguration", "kruise-validating-webhook-configuration")["webhooks"]:
        assert webhook["clientConfig"]["service"]["namespace"] == "kruise-other"
    daemon = one(docs, "DaemonSet", "kruise-daemon")["spec"]["template"]["spec"]["containers"][0]
    assert "--socket-file=cri-dockerd.sock" in daemon["args"]


def test_kruise_daemon_gate_removes_the_daemonset_and_crds_can_be_left_out(helm, charts):
    docs = render(
        helm,
        charts.layout.kruise_chart,
        "--set",
        "featureGates=ImagePullJobGate=true\\,KruiseDaemon=false,crds.managed=false",
    )
    assert not [doc for doc in docs if doc["kind"] in ("DaemonSet", "CustomResourceDefinition")]
    one(docs, "Deployment", "kruise-controller-manager")
    one(docs, "ServiceAccount", "kruise-daemon")


@pytest.mark.parametrize("which", ["kruise_chart", "kruise_chart_no_affinity"])
def test_helm_lint_strict(helm, charts, which):
    directory = getattr(charts.layout, which)
    for path in (directory, directory.with_name(directory.name + ".tgz")):
        result = helm(path, "--strict", command=("lint",), check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "0 chart(s) failed" in result.stdout
