"""Objects the stack renders from upstream files and applies to its clusters."""

import base64
import textwrap

from tests.stack import loadbalancer, manifests, topology
from tests.stack.kruise_kubelet import manager_pod, pod_args, pod_env


def test_crds_get_local_conversion_webhook(tmp_path):
    (tmp_path / "bases" / "work").mkdir(parents=True)
    (tmp_path / "patches").mkdir()
    (tmp_path / "kustomization.yaml").write_text("resources: []\n")
    (tmp_path / "bases" / "work" / "rb.yaml").write_text(textwrap.dedent("""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: resourcebindings.work.karmada.io}
        spec:
          group: work.karmada.io
          names: {kind: ResourceBinding, plural: resourcebindings}
          scope: Namespaced
          versions: []
        """))
    (tmp_path / "patches" / "webhook_in_resourcebindings.yaml").write_text(textwrap.dedent("""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: resourcebindings.work.karmada.io}
        spec:
          conversion:
            strategy: Webhook
            webhook:
              clientConfig:
                url: "https://{{name}}.{{namespace}}.svc:443/convert"
                caBundle: "{{caBundle}}"
              conversionReviewVersions: ["v1"]
        """))
    crds = manifests.karmada_crds(tmp_path, 18443, b"CA")
    assert len(crds) == 1
    client_config = crds[0]["spec"]["conversion"]["webhook"]["clientConfig"]
    assert client_config == {"url": "https://127.0.0.1:18443/convert", "caBundle": base64.b64encode(b"CA").decode()}
    assert crds[0]["spec"]["names"]["kind"] == "ResourceBinding"


def test_webhook_configuration_points_at_the_local_webhook(tmp_path):
    template = tmp_path / "webhook-configuration.yaml"
    template.write_text(textwrap.dedent("""\
        apiVersion: admissionregistration.k8s.io/v1
        kind: MutatingWebhookConfiguration
        metadata: {name: mutating-config}
        webhooks:
          - name: propagationpolicy.karmada.io
            clientConfig:
              url: https://karmada-webhook.karmada-system.svc:443/mutate-propagationpolicy
              caBundle: {{caBundle}}
        """))
    docs = manifests.karmada_webhook_configurations(template, 18443, b"CA")
    client_config = docs[0]["webhooks"][0]["clientConfig"]
    assert client_config["url"] == "https://127.0.0.1:18443/mutate-propagationpolicy"
    assert client_config["caBundle"] == base64.b64encode(b"CA").decode()


def test_member_nodes():
    member = topology.members(2)[1]
    nodes = manifests.member_nodes(member, "v1.32.9")
    regular = [n for n, _status in nodes if n["metadata"]["labels"]["type"] == "kwok"]
    virtual = [n for n, _status in nodes if n["metadata"]["labels"]["type"] == "virtual-kubelet"]
    assert len({n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in regular}) == 2
    assert all("taints" not in n["spec"] for n in regular)
    (vk,) = virtual
    assert vk["metadata"]["labels"]["kubernetes.io/role"] == "agent"
    assert vk["spec"]["taints"] == [{"key": "virtual-kubelet.io/provider", "value": "huawei", "effect": "NoSchedule"}]
    assert all(n["metadata"]["annotations"] == {"kwok.x-k8s.io/node": "fake"} for n, _status in nodes)
    for _node, status in nodes:
        assert set(status["status"]["allocatable"]) >= {"cpu", "memory", "pods"}


def lb_service(name, ips=(), kind="LoadBalancer", **spec):
    service = {"metadata": {"namespace": "ns", "name": name}, "spec": {"type": kind, **spec}, "status": {}}
    if ips:
        service["status"] = {"loadBalancer": {"ingress": [{"ip": ip} for ip in ips]}}
    return service


def test_load_balancer_assignments():
    services = [lb_service("a", ips=["10.250.0.1"]), lb_service("b"), lb_service("c", kind="ClusterIP"),
                lb_service("d", loadBalancerIP="10.250.0.77"), lb_service("e"),
                lb_service("f", loadBalancerClass="other.io/lb")]
    assert loadbalancer.assignments(services, "10.250.0") == [
        ("ns", "b", "10.250.0.2"), ("ns", "d", "10.250.0.77"), ("ns", "e", "10.250.0.3")]


def manager(name, phase="Running", created="2026-01-01T00:00:00Z", deleting=False):
    pod = {"metadata": {"name": name, "namespace": "kruise-system", "uid": name, "creationTimestamp": created},
           "spec": {"containers": [{"name": "manager", "command": ["/manager"],
                                    "args": ["--enable-leader-election", "--v=4"],
                                    "env": [{"name": "KUBE_CACHE_MUTATION_DETECTOR", "value": "true"},
                                            {"name": "WEBHOOK_PORT", "value": "9876"},
                                            {"name": "POD_NAMESPACE",
                                             "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                                            {"name": "SECRET", "valueFrom": {"secretKeyRef": {"name": "x", "key": "y"}}}]}]},
           "status": {"phase": phase}}
    if deleting:
        pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:01:00Z"
    return pod


def test_kruise_kubelet_picks_the_newest_running_manager_pod():
    pods = [manager("kruise-controller-manager-old"), manager("kruise-daemon-x"),
            manager("kruise-controller-manager-new", created="2026-01-02T00:00:00Z"),
            manager("kruise-controller-manager-pending", phase="Pending", created="2026-01-03T00:00:00Z"),
            manager("kruise-controller-manager-gone", deleting=True, created="2026-01-04T00:00:00Z")]
    assert manager_pod(pods)["metadata"]["name"] == "kruise-controller-manager-new"
    assert manager_pod([manager("kruise-daemon-x")]) is None


def test_kruise_kubelet_takes_args_and_plain_env_from_the_pod():
    pod = manager("kruise-controller-manager-a")
    assert pod_args(pod) == ["--enable-leader-election", "--v=4"]
    assert pod_env(pod) == {"WEBHOOK_PORT": "9876", "POD_NAMESPACE": "kruise-system"}


def test_a_member_without_virtual_kubelet_has_its_regular_nodes_only():
    idc1, test_ucs = topology.members(2, without_virtual_kubelet=("idc1",))
    assert (idc1.virtual_kubelet, test_ucs.virtual_kubelet) == (False, True)
    assert [n["metadata"]["labels"]["type"] for n, _status in manifests.member_nodes(idc1, "v1.32.9")] == ["kwok", "kwok"]
    assert [n["metadata"]["name"] for n, _status in manifests.member_nodes(test_ucs, "v1.32.9")][-1] == \
        manifests.virtual_kubelet_node_name(test_ucs) == "test-ucs-virtual-kubelet"
