# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Template stripping, dependency discovery, round-trip comparison and snapshots of federalize.objects."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import (
    REDACTED,
    compare_round_trip,
    compare_snapshots,
    dependency_refs,
    diff_paths,
    node_port_collisions,
    pod_dependencies,
    redact,
    strip_template,
    workload_snapshot,
)


def live_deployment():
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "fed-dp-01",
            "namespace": "fed-demo",
            "uid": "1111",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "managedFields": [{"manager": "kubectl"}],
            "ownerReferences": [{"kind": "Something", "name": "x", "uid": "9"}],
            "finalizers": ["example.com/keep"],
            "selfLink": "/apis/apps/v1/namespaces/fed-demo/deployments/fed-dp-01",
            "labels": {"app": "fed-dp-01"},
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": "{}",
                "deployment.kubernetes.io/revision": "3",
                "deployment.kubernetes.io/revision-history": "1,2",
                "team": "payments",
            },
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "fed-dp-01"}},
            "template": {
                "metadata": {
                    "labels": {"app": "fed-dp-01"},
                    "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-01-02T00:00:00Z"},
                },
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.27",
                            "envFrom": [{"configMapRef": {"name": "fed-cm-02"}}],
                            "env": [
                                {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "fed-secret-01", "key": "pw"}}},
                                {"name": "X", "value": "1"},
                            ],
                        }
                    ],
                    "volumes": [
                        {"name": "conf", "configMap": {"name": "fed-cm-01"}},
                        {"name": "sec", "secret": {"secretName": "fed-secret-01"}},
                    ],
                },
            },
        },
        "status": {"replicas": 2, "readyReplicas": 2},
    }


def live_service(**spec):
    base = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "fed-service-01",
            "namespace": "fed-demo",
            "uid": "2",
            "resourceVersion": "5",
            "annotations": {"service.beta.kubernetes.io/example-lb-id": "lb-1"},
        },
        "spec": {
            "type": "LoadBalancer",
            "clusterIP": "10.0.0.17",
            "clusterIPs": ["10.0.0.17"],
            "externalTrafficPolicy": "Local",
            "healthCheckNodePort": 32001,
            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP", "nodePort": 31922}],
            "selector": {"app": "fed-dp-01"},
        },
        "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}},
    }
    base["spec"].update(spec)
    return base


class TestStripTemplate:
    def test_member_owned_metadata_and_status_are_removed(self):
        template, warnings = strip_template(live_deployment())
        meta = template["metadata"]
        for field in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
                      "ownerReferences", "finalizers", "selfLink"):
            assert field not in meta, field
        assert "status" not in template
        assert warnings == []

    def test_annotations_last_applied_and_revision_removed_others_kept(self):
        template = strip_template(live_deployment())[0]
        # The engine's adoption mark comes later (adoption_template), not from stripping.
        assert template["metadata"]["annotations"] == {"team": "payments"}
        assert template["metadata"]["labels"] == {"app": "fed-dp-01"}

    def test_pod_template_untouched(self):
        live = live_deployment()
        template = strip_template(live)[0]
        # restartedAt and everything else in the pod template stay: removing them rolls the pods.
        assert template["spec"] == live["spec"]

    def test_input_not_modified(self):
        live = live_deployment()
        before = copy.deepcopy(live)
        strip_template(live)
        assert live == before

    def test_karmada_bookkeeping_removed(self):
        live = live_deployment()
        live["metadata"]["labels"].update({"karmada.io/managed": "true", "work.karmada.io/permanent-id": "x"})
        live["metadata"]["annotations"].update(
            {"resourcetemplate.karmada.io/uid": "u", "work.karmada.io/name": "w", "work.karmada.io/namespace": "n"}
        )
        template = strip_template(live)[0]
        assert template["metadata"]["labels"] == {"app": "fed-dp-01"}
        assert set(template["metadata"]["annotations"]) == {"team"}

    def test_revision_annotation_kept_on_non_deployments(self):
        live = live_deployment()
        live["kind"] = "StatefulSet"
        template = strip_template(live)[0]
        assert "deployment.kubernetes.io/revision" in template["metadata"]["annotations"]

    def test_service_cluster_ip_removed_node_ports_kept_with_warning(self):
        template, warnings = strip_template(live_service())
        spec = template["spec"]
        assert "clusterIP" not in spec and "clusterIPs" not in spec
        assert spec["ports"][0]["nodePort"] == 31922
        assert spec["healthCheckNodePort"] == 32001
        assert "status" not in template
        assert len(warnings) == 1 and "31922" in warnings[0] and "32001" in warnings[0]
        assert template["metadata"]["annotations"]["service.beta.kubernetes.io/example-lb-id"] == "lb-1"

    def test_service_node_ports_removed_on_request(self):
        template, warnings = strip_template(live_service(), keep_node_ports=False)
        assert "nodePort" not in template["spec"]["ports"][0]
        assert "healthCheckNodePort" not in template["spec"]
        assert warnings == []

    def test_headless_service_keeps_cluster_ip(self):
        template, warnings = strip_template(live_service(type="ClusterIP", clusterIP="None", clusterIPs=["None"],
                                                         healthCheckNodePort=None, ports=[{"port": 80}]))
        assert template["spec"]["clusterIP"] == "None"
        assert template["spec"]["clusterIPs"] == ["None"]
        assert warnings == []

    def test_service_account_token_secret_data_removed(self):
        secret = {
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": "t", "annotations": {
                "kubernetes.io/service-account.uid": "u",
                "kubernetes.io/service-account.name": "sa",
            }},
            "data": {"token": "abc"},
        }
        template = strip_template(secret)[0]
        assert template["data"] is None
        assert "kubernetes.io/service-account.uid" not in template["metadata"]["annotations"]
        assert template["metadata"]["annotations"]["kubernetes.io/service-account.name"] == "sa"

    def test_opaque_secret_data_kept(self):
        secret = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                  "metadata": {"name": "s"}, "data": {"pw": "c2VjcmV0"}}
        template = strip_template(secret)[0]
        assert template["data"] == {"pw": "c2VjcmV0"}

    def test_service_account_auto_token_refs_removed(self):
        sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "app"},
              "secrets": [{"name": "app-token-abcde"}, {"name": "registry"}]}
        template = strip_template(sa)[0]
        assert template["secrets"] == [{"name": "registry"}]

    def test_pvc_selected_node_removed(self):
        pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "data", "annotations": {"volume.kubernetes.io/selected-node": "n1", "a": "b"}}}
        template = strip_template(pvc)[0]
        assert template["metadata"]["annotations"] == {"a": "b"}

    def test_job_generated_selector_removed_unless_manual(self):
        job = {
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {
                "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u", "controller-uid": "u"}},
                "template": {"metadata": {"labels": {"job-name": "j", "batch.kubernetes.io/job-name": "j",
                                                     "batch.kubernetes.io/controller-uid": "u", "app": "x"}}},
            },
        }
        template = strip_template(job)[0]
        assert template["spec"]["selector"]["matchLabels"] == {}
        assert template["spec"]["template"]["metadata"]["labels"] == {"app": "x"}
        job["spec"]["manualSelector"] = True
        template = strip_template(job)[0]
        assert template["spec"]["selector"]["matchLabels"]["controller-uid"] == "u"


def refs(kind, *names, **kwargs):
    namespace = kwargs.get("namespace", "fed-demo")
    return [{"apiVersion": "v1", "kind": kind, "namespace": namespace, "name": name} for name in names]


class TestDependencies:
    def test_reference_deployment(self):
        deps = pod_dependencies(live_deployment()["spec"]["template"], "fed-demo")
        assert deps == refs("ConfigMap", "fed-cm-02", "fed-cm-01") + refs("Secret", "fed-secret-01")

    def test_every_source(self):
        spec = {
            "serviceAccountName": "runner",
            "imagePullSecrets": [{"name": "pull"}],
            "initContainers": [{"name": "i", "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm-init"}}}]}],
            "containers": [{"name": "c", "envFrom": [{"secretRef": {"name": "s-envfrom"}}]}],
            "ephemeralContainers": [{"name": "e", "envFrom": [{"configMapRef": {"name": "cm-eph"}}]}],
            "volumes": [
                {"name": "p", "projected": {"sources": [{"configMap": {"name": "cm-proj"}}, {"secret": {"name": "s-proj"}}]}},
                {"name": "csi", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "s-csi"}}},
                {"name": "ceph", "cephfs": {"monitors": [], "secretRef": {"name": "s-ceph"}}},
                {"name": "az", "azureFile": {"secretName": "s-az", "shareName": "x"}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "empty", "configMap": {"name": ""}},
            ],
        }
        assert pod_dependencies({"spec": spec}, "n") == (
            refs("ConfigMap", "cm-init", "cm-eph", "cm-proj", namespace="n")
            + refs("Secret", "pull", "s-envfrom", "s-proj", "s-csi", "s-ceph", "s-az", namespace="n")
            + refs("ServiceAccount", "runner", namespace="n") + refs("PersistentVolumeClaim", "data", namespace="n"))

    def test_a_volume_has_one_source(self):
        # visitpod.go reads the first source of a volume (a switch), as Karmada does.
        spec = {"volumes": [{"name": "v", "secret": {"secretName": "s"}, "configMap": {"name": "cm"}}]}
        assert pod_dependencies({"spec": spec}, "n") == refs("Secret", "s", namespace="n")

    def test_default_service_account_is_not_a_dependency(self):
        assert pod_dependencies({"spec": {"serviceAccountName": "default"}}, "n") == []

    def test_empty_namespace_is_left_out(self):
        spec = {"volumes": [{"name": "v", "configMap": {"name": "cm"}}]}
        assert pod_dependencies({"spec": spec}, "") == [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm"}]

    def test_refs_for_cronjob_and_non_workloads(self):
        cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c", "namespace": "n"},
                "spec": {"jobTemplate": {"spec": {"template": {"spec": {"volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}}}}
        assert dependency_refs(cron) == [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "n", "name": "cm"}]
        assert dependency_refs(live_service()) == []


class TestRoundTrip:
    def test_identical_pod_template_passes(self):
        live = live_deployment()
        returned = strip_template(live)[0]
        result = compare_round_trip(live, returned)
        assert result == {"path": "/spec/template", "dropped": [], "changed": [], "added": []}

    def test_dropped_and_changed_fields_listed(self):
        live = live_deployment()
        live["spec"]["template"]["spec"]["containers"][0]["resizePolicy"] = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
        live["spec"]["template"]["spec"]["hostUsers"] = False
        returned = copy.deepcopy(live)
        del returned["spec"]["template"]["spec"]["containers"][0]["resizePolicy"]
        del returned["spec"]["template"]["spec"]["hostUsers"]
        returned["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:other"
        returned["spec"]["template"]["spec"]["schedulerName"] = "default-scheduler"
        result = compare_round_trip(live, returned)
        assert result["dropped"] == [
            "/spec/template/spec/containers[name=web]/resizePolicy",
            "/spec/template/spec/hostUsers",
        ]
        assert result["changed"] == ["/spec/template/spec/containers[name=web]/image"]
        assert result["added"] == ["/spec/template/spec/schedulerName"]

    def test_changes_outside_the_pod_template_do_not_count(self):
        live = live_deployment()
        returned = copy.deepcopy(live)
        returned["spec"]["replicas"] = 7
        returned["metadata"]["uid"] = "other"
        assert compare_round_trip(live, returned)["changed"] == []

    def test_custom_resource_compares_whole_spec(self):
        live = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                "spec": {"size": 1, "extra": {"newField": True}}}
        returned = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                    "spec": {"size": 1, "extra": {}}}
        result = compare_round_trip(live, returned)
        assert result["path"] == "/spec"
        assert result["dropped"] == ["/spec/extra/newField"]

    def test_builtin_kinds_without_pod_template_are_not_compared(self):
        assert compare_round_trip(live_service(), {})["path"] is None

    def test_positional_lists_and_escaping(self):
        dropped, changed, added = diff_paths({"a/b": [1, 2, 3]}, {"a/b": [1, 5]})
        assert dropped == ["/a~1b/2"] and changed == ["/a~1b/1"] and added == []


class TestNodePorts:
    def test_collision_detected(self):
        template = strip_template(live_service())[0]
        other = live_service()
        other["metadata"].update(name="other", namespace="shop")
        other["spec"]["healthCheckNodePort"] = None
        assert node_port_collisions([template], [other], "test-ucs") == [
            "nodePort 31922 of Service fed-demo/fed-service-01 is already allocated in cluster test-ucs by Service shop/other"
        ]

    def test_own_copy_is_not_a_collision(self):
        template = strip_template(live_service())[0]
        assert node_port_collisions([template], [live_service()], "test-ucs") == []

    def test_free_ports(self):
        template = strip_template(live_service())[0]
        other = live_service(ports=[{"port": 80, "nodePort": 30001}], healthCheckNodePort=None)
        other["metadata"]["name"] = "other"
        assert node_port_collisions([template], [other], "b") == []


class TestRedact:
    def test_secret_values_hidden_keys_kept(self):
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"pw":"c2VjcmV0"}}'}},
            "data": {"pw": "c2VjcmV0"}, "stringData": {"x": "y"}}
        safe = redact(secret)
        assert safe["data"] == {"pw": REDACTED}
        assert safe["stringData"] == {"x": REDACTED}
        assert "c2VjcmV0" not in str(safe)
        assert secret["data"] == {"pw": "c2VjcmV0"}

    def test_other_kinds_untouched(self):
        cm = {"kind": "ConfigMap", "data": {"a": "b"}}
        assert redact(cm) is cm


class TestSnapshots:
    def pods(self, *uids):
        return [{"metadata": {"name": "p%d" % i, "uid": uid, "labels": {"app": "fed-dp-01"}}} for i, uid in enumerate(uids)]

    def test_unchanged(self):
        dep = live_deployment()
        rs = [{"metadata": {"name": "rs1", "uid": "r1", "labels": {"app": "fed-dp-01"}}}]
        before = workload_snapshot(dep, self.pods("a", "b"), rs)
        assert before["generation"] == 3
        assert before["pods"] == ["p0/a", "p1/b"] and before["replicasets"] == ["rs1/r1"]
        assert compare_snapshots("Deployment x", before, copy.deepcopy(before)) == []

    def test_generation_bump_from_annotations_alone_is_fine(self):
        dep = live_deployment()
        before = workload_snapshot(dep, self.pods("a"), [])
        dep["metadata"]["generation"] = 4
        dep["metadata"]["annotations"]["resourcetemplate.karmada.io/uid"] = "u"
        assert compare_snapshots("Deployment x", before, workload_snapshot(dep, self.pods("a"), [])) == []

    def test_restart_detected(self):
        dep = live_deployment()
        before = workload_snapshot(dep, self.pods("a", "b"), [])
        dep2 = copy.deepcopy(dep)
        dep2["metadata"]["generation"] = 4
        dep2["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"] = "later"
        after = workload_snapshot(dep2, self.pods("a", "c"), [{"metadata": {"name": "rs2", "uid": "r2", "labels": {"app": "fed-dp-01"}}}])
        problems = compare_snapshots("Deployment x", before, after)
        assert len(problems) == 3
        assert problems[0] == "Deployment x: spec rewritten (generation 3 -> 4)"
        assert "gone: none; new: rs2/r2" in problems[1]
        assert "gone: p1/b; new: p1/c" in problems[2]

    def test_other_apps_pods_ignored(self):
        other = [{"metadata": {"name": "x", "uid": "z", "labels": {"app": "other"}}}]
        assert workload_snapshot(live_deployment(), other, [])["pods"] == []
