#!/usr/bin/env bash
# The first runbook as its own commands, one after the other as a person types them: what site.yml
# is compared with in `make bench` (bench/run.py). No checks, no idempotence, no verification beyond
# waiting for the replicas: the plain script an automation has to be measured against.
#
# Inputs (bench/run.py sets them from the local stack):
#   MCF_FEDERATION_KUBECONFIG      the control plane's kubeconfig (context `federation`: the UCS-like endpoint)
#   MCF_BENCH_MEMBER_KUBECONFIGS   the members' kubeconfigs, space-separated (context `internal`)
#   MCF_BENCH_CHART                the Kruise chart directory
#   MCF_BENCH_MANIFESTS            the interpreter, PropagationPolicy and UnitedDeployment, as files
#   MCF_BENCH_REPLICAS             the UnitedDeployment's replicas
set -euo pipefail

fed=(--kubeconfig "$MCF_FEDERATION_KUBECONFIG" --context federation)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Step 3.2: Kruise on every member, kruise-daemon off the virtual-kubelet nodes (the runbook removes
# the daemon's toleration; chart 1.7+ says it with daemon.affinity, as the kruise role does).
for kubeconfig in $MCF_BENCH_MEMBER_KUBECONFIGS; do
  helm --kubeconfig "$kubeconfig" --kube-context internal install kruise "$MCF_BENCH_CHART" -n default \
    --set installation.namespace=kruise-system \
    --set-json 'daemon.affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"type","operator":"NotIn","values":["virtual-kubelet"]}]}]}}}'
done

# Step 4.2: the CRDs on the control plane. Its /version has no usable gitVersion, so the chart's
# kubeVersion line goes; kruise-system must not be propagated to the members.
cp -r "$MCF_BENCH_CHART" "$work/kruise"
sed -i '/^kubeVersion:/d' "$work/kruise/Chart.yaml"
# As the runbook writes it: created, then labelled. Between the two commands Karmada's namespace sync
# makes Works that copy kruise-system to every member (they fail while the member's Helm release owns
# its kruise-system, and recreate it once that release is gone); the kruise_control_plane role creates
# the namespace with the label. tests/integration/kruise_support.remove_kruise deletes this namespace
# before the members' releases for that reason.
kubectl "${fed[@]}" create namespace kruise-system
kubectl "${fed[@]}" label namespace kruise-system namespace.karmada.io/skip-auto-propagation=true
helm --kubeconfig "$MCF_FEDERATION_KUBECONFIG" --kube-context federation install kruise "$work/kruise" \
  -n kruise-system --set installation.namespace=kruise-system --set installation.createNamespace=false

# Step 4.3.1: nothing serves Kruise's webhooks on the control plane.
kubectl "${fed[@]}" delete mutatingwebhookconfiguration kruise-mutating-webhook-configuration
kubectl "${fed[@]}" delete validatingwebhookconfiguration kruise-validating-webhook-configuration

# Steps 4.2.2, 4.3.2 and 4.3.3: the interpreter, the PropagationPolicy and the UnitedDeployment.
kubectl "${fed[@]}" wait --for condition=Established --timeout=300s crd/uniteddeployments.apps.kruise.io
# Karmada's scheduler places a binding only on members whose Cluster.status.apiEnablements lists its
# kind, and does not try again once it found none (v1.18.2; seen here: the binding stayed "0/2
# clusters are available: 2 cluster(s) did not have the API resource" for the 15 minutes the script
# waited). The runbook's operator waits until every member reports UnitedDeployment first.
for _ in $(seq 300); do
  kinds=$(kubectl "${fed[@]}" get clusters -o jsonpath='{range .items[*]}{.metadata.name}={.status.apiEnablements[*].resources[*].kind}{"\n"}{end}')
  if ! grep -qv 'UnitedDeployment' <<<"$kinds"; then break; fi
  sleep 1
done
kubectl "${fed[@]}" apply -f "$MCF_BENCH_MANIFESTS"

# Until Karmada reports every replica ready (the interpreter aggregates the members' status).
kubectl "${fed[@]}" wait uniteddeployment/demo -n default --timeout=900s \
  --for "jsonpath={.status.readyReplicas}=$MCF_BENCH_REPLICAS"
