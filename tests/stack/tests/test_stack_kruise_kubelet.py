"""The kruise-manager "kubelet" loop: start with the pod, restart on new args, stop when the release goes."""

from pathlib import Path

import pytest

from tests.stack import kruise_kubelet, topology
from tests.stack.components import Components
from tests.stack.layout import Layout, load_versions
from tests.stack.pki import Pki
from tests.stack.state import StatePaths


class FakeApi:
    def __init__(self):
        self.crd = True
        self.pods = []

    def get(self, path, params=None):
        if path.endswith(kruise_kubelet.UNITED_DEPLOYMENT_CRD):
            return {"kind": "CustomResourceDefinition"} if self.crd else None
        if path == f"/api/v1/namespaces/{kruise_kubelet.KRUISE_NAMESPACE}/pods":
            return {"items": self.pods}
        raise AssertionError(path)


VERSIONS = load_versions()
KRUISE = VERSIONS["kruise"]["version"]
RUNBOOK_KRUISE = VERSIONS["kruise_runbook"]["version"]


def pod(uid, args=("--enable-leader-election", "--v=4"), image=None):
    container = {"name": "manager", "command": ["/manager"], "args": list(args)}
    if image:
        container["image"] = image
    return {"metadata": {"name": f"kruise-controller-manager-{uid}", "namespace": "kruise-system", "uid": uid,
                         "creationTimestamp": f"2026-01-01T00:00:0{uid[-1]}Z"},
            "spec": {"containers": [container]},
            "status": {"phase": "Running"}}


class FakeProcesses:
    """Stands in for the pid records: which processes are running, what was started and stopped."""

    def __init__(self):
        self.running = {}
        self.log = []

    def read_record(self, state, name):
        return self.running.get(name)

    def is_running(self, record):
        return record is not None

    def start(self, state, spec):
        self.running[spec.name] = spec
        self.log.append(("start", spec))

    def stop(self, state, name, timeout=20.0):
        self.running.pop(name, None)
        self.log.append(("stop", name))
        return "stopped"


@pytest.fixture(name="kubelet")
def kubelet_fixture(tmp_path, monkeypatch):
    fake = FakeProcesses()
    for name in ("read_record", "is_running", "start", "stop"):
        monkeypatch.setattr(kruise_kubelet.processes, name, getattr(fake, name))
    monkeypatch.setattr(kruise_kubelet, "RESTART_BACKOFF_SECONDS", 0.0)
    member = topology.members(1)[0]
    state = StatePaths(tmp_path)
    # A build cache of its own, with both kruise-managers in its bin dir.
    lay = Layout(root=tmp_path / "cache", versions=VERSIONS)
    lay.bin_dir.mkdir(parents=True)
    for binary in lay.kruise_manager_binaries().values():
        lay.binary(binary).touch()
    components = Components(lay, state, Pki(Path(tmp_path / "pki"), ["idc1"]), [member])
    result = kruise_kubelet.MemberKubelet(member, components, FakeApi())
    result.fake = fake
    return result


def test_nothing_runs_without_the_release(kubelet):
    kubelet.tick()
    kubelet.api.crd = False
    kubelet.api.pods = [pod("a1")]
    kubelet.tick()
    assert kubelet.fake.log == []


def test_the_pod_starts_a_local_manager_with_its_args_made_local(kubelet):
    kubelet.api.pods = [pod("a1")]
    kubelet.tick()
    kubelet.tick()
    ((verb, spec),) = kubelet.fake.log
    assert verb == "start" and spec.name == "idc1.kruise-manager"
    assert spec.argv[1:3] == ["--v=4", "--enable-leader-election=false"]
    assert f"--metrics-addr=127.0.0.1:{kubelet.member.kruise_metrics_port}" in spec.argv
    assert "WEBHOOK_HOST" not in spec.env, "Service-based webhooks, as in a cluster"
    assert spec.env["WEBHOOK_PORT"] == str(kubelet.member.kruise_webhook_port)
    assert spec.env["POD_NAMESPACE"] == "kruise-system"


def test_a_replacement_pod_restarts_the_manager_with_the_new_args(kubelet):
    kubelet.api.pods = [pod("a1")]
    kubelet.tick()
    kubelet.api.pods = [pod("a1"), pod("b2", args=("--feature-gates=X=true",))]
    kubelet.tick()
    assert [verb for verb, _item in kubelet.fake.log] == ["start", "stop", "start"]
    assert "--feature-gates=X=true" in kubelet.fake.log[-1][1].argv


def test_an_identical_replacement_pod_restarts_nothing(kubelet):
    kubelet.api.pods = [pod("a1")]
    kubelet.tick()
    kubelet.api.pods = [pod("b2")]
    kubelet.tick()
    assert [verb for verb, _item in kubelet.fake.log] == ["start"]


def test_the_manager_stops_when_the_release_is_gone_but_rides_out_a_blip(kubelet):
    kubelet.api.pods = [pod("a1")]
    kubelet.tick()
    kubelet.api.pods = []
    kubelet.tick()
    assert "idc1.kruise-manager" in kubelet.fake.running, "one missed check must not stop it"
    kubelet.tick()
    assert "idc1.kruise-manager" not in kubelet.fake.running
    assert kubelet.fake.log[-1] == ("stop", "idc1.kruise-manager")


def test_a_crashed_manager_is_started_again(kubelet):
    kubelet.api.pods = [pod("a1")]
    kubelet.tick()
    kubelet.fake.running.clear()
    kubelet.tick()
    assert [verb for verb, _item in kubelet.fake.log] == ["start", "start"]


def test_the_image_tag_picks_the_kruise_manager_build(kubelet):
    lay = kubelet.components.layout
    kubelet.api.pods = [pod("a1", image=f"openkruise/kruise-manager:{RUNBOOK_KRUISE}")]
    kubelet.tick()
    ((verb, spec),) = kubelet.fake.log
    assert verb == "start" and spec.argv[0] == str(lay.binary(f"kruise-manager-{RUNBOOK_KRUISE}"))
    # helm upgrade to the other chart version: same args, another image, so the other binary.
    kubelet.api.pods = [pod("b2", image=f"openkruise/kruise-manager:{KRUISE}")]
    kubelet.tick()
    assert [verb for verb, _item in kubelet.fake.log] == ["start", "stop", "start"]
    assert kubelet.fake.log[-1][1].argv[0] == str(lay.binary("kruise-manager"))


def test_image_tags_and_the_binaries_they_run():
    binaries = {KRUISE: "kruise-manager", RUNBOOK_KRUISE: f"kruise-manager-{RUNBOOK_KRUISE}"}

    def built(_name):
        return True

    def for_image(image, exists=built):
        return kruise_kubelet.manager_binary(pod("a1", image=image), binaries, exists)

    assert for_image(f"registry.local:5000/openkruise/kruise-manager:{RUNBOOK_KRUISE}") == (
        f"kruise-manager-{RUNBOOK_KRUISE}", None)
    assert for_image(f"openkruise/kruise-manager:{KRUISE}") == ("kruise-manager", None)
    # No tag (or a digest only), and a port in the registry's name, are not tags.
    assert for_image(None) == ("kruise-manager", None)
    assert for_image("registry.local:5000/kruise-manager@sha256:0123") == ("kruise-manager", None)
    binary, note = for_image("openkruise/kruise-manager:v0.0.1")
    assert binary == "kruise-manager" and "image tag v0.0.1 is none of" in note
    binary, note = for_image(f"openkruise/kruise-manager:{RUNBOOK_KRUISE}", exists=lambda name: name == "kruise-manager")
    assert binary == "kruise-manager" and "is not built" in note
