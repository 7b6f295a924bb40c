"""The federalization scenario of the federalization, drift and member_join integration tests: the reference
runbook's objects and the role variables that federalize them, the members' registration as Karmada has it.
Running playbooks is playbook_runner's, reading objects cluster_objects', losing the controller fault_support's."""

from __future__ import annotations

from tests.integration.cluster_objects import deployment
from tests.integration.secret_scan import b64


def joined_as_registered(stack) -> dict:
    """Each member's region and zones as Karmada registered them, so member_join.yml changes nothing."""
    hosts = {}
    for cluster in stack.karmada().get("clusters")["items"]:
        name, spec = cluster["metadata"]["name"], cluster["spec"]
        if name in stack.member_kubeconfigs:  # not a Cluster another test registered without a member behind it
            hosts[name] = {"member_join_region": spec.get("region", ""), "member_join_zones": spec.get("zones", [])}
    return {"members": {"hosts": hosts}}


def serves_united_deployment(karmada, cluster, api_version):
    """Ready, and Cluster.status.apiEnablements lists UnitedDeployment: the scheduler (and verify's
    prediction) count the cluster as a candidate again."""
    status = karmada.get("cluster.cluster.karmada.io", cluster).get("status", {})
    ready = any(c["type"] == "Ready" and c["status"] == "True" for c in status.get("conditions", []))
    return ready and any(group["groupVersion"] == api_version and any(r["kind"] == "UnitedDeployment"
                                                                      for r in group.get("resources") or [])
                         for group in status.get("apiEnablements") or [])


NAMESPACE = "fed-demo"
SECRET_VALUE = "s3cr3t-federalize-value"
SOURCE_LB_ANNOTATION = "service.beta.kubernetes.io/volcengine-loadbalancer-id"
TARGET_LB_ANNOTATIONS = {
    "kubernetes.io/elb.class": "union",
    "kubernetes.io/elb.id": "elb-test-ucs-0001",
}
NODE_PORT = 31922


def web_deployment(name: str, replicas: int, configmap: str, namespace: str = NAMESPACE, secret: str = "fed-secret-01",
                   image: str = "nginx:1.27") -> dict:
    """A web Deployment (labels app=<name>) that reads the password of Secret ``secret`` and mounts ConfigMap
    ``configmap`` at /etc/app: the shape of the federalization and drift tests' applications."""
    container = {"name": "web", "image": image,
                 "env": [{"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": secret, "key": "password"}}}],
                 "volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}]}
    return deployment(name, namespace, replicas, [container], metadata_labels={"app": name},
                      volumes=[{"name": "conf", "configMap": {"name": configmap}}])


def reference_scenario() -> list[dict]:
    """The runbook's application, created directly in idc1: two Deployments with their ConfigMaps and
    Secret, and a LoadBalancer Service with the source cloud's annotation and a fixed nodePort."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fed-cm-01", "namespace": NAMESPACE},
         "data": {"app.conf": "listen 8080\n"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fed-cm-02", "namespace": NAMESPACE},
         "data": {"app.conf": "listen 8081\n"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "fed-secret-01", "namespace": NAMESPACE},
         "type": "Opaque", "data": {"password": b64(SECRET_VALUE)}},
        web_deployment("fed-dp-01", 3, "fed-cm-01"),
        web_deployment("fed-dp-02", 2, "fed-cm-02"),
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "fed-service-01", "namespace": NAMESPACE,
                         "annotations": {SOURCE_LB_ANNOTATION: "lb-idc1-0001"}},
            "spec": {
                "type": "LoadBalancer",
                "selector": {"app": "fed-dp-01"},
                "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP", "nodePort": NODE_PORT}],
            },
        },
    ]


FEDERALIZE_VARS = {
    "federalize_source": "idc1",
    "federalize_namespace": NAMESPACE,
    "federalize_policy_name": "fed-app",
    "federalize_resources": [
        {"api_version": "apps/v1", "kind": "Deployment", "names": ["fed-dp-01", "fed-dp-02"]},
        {"api_version": "v1", "kind": "Service", "names": ["fed-service-01"]},
    ],
    "federalize_wait_timeout": 240,
}

OVERRIDE_VARS = {
    "override_policy_name": "fed-service-01-lb",
    "override_policy_namespace": NAMESPACE,
    "override_policy_resource_selectors": [{"api_version": "v1", "kind": "Service", "name": "fed-service-01"}],
    "override_policy_rules": [{
        "target_clusters": ["test-ucs"],
        "annotations": TARGET_LB_ANNOTATIONS,
        "remove_annotations": [SOURCE_LB_ANNOTATION],
    }],
}
