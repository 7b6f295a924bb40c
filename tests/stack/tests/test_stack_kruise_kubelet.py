"""The kruise-manager "kubelet" loop: start with the pod, restart on new args, stop when the release goes."""

from pathlib import Path

import pytest

from tests.stack import kruise_kubelet, topology
from tests.stack.components import Components
from tests.stack.layout import layout
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


def pod(uid, args=("--enable-leader-election", "--v=4")):
    return {"metadata": {"name": f"kruise-controller-manager-{uid}", "namespace": "kruise-system", "uid": uid,
                         "creationTimestamp": f"2026-01-01T00:00:0{uid[-1]}Z"},
            "spec": {"containers": [{"name": "manager", "command": ["/manager"], "args": list(args)}]},
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
    components = Components(layout(), state, Pki(Path(tmp_path / "pki"), ["idc1"]), [member])
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
