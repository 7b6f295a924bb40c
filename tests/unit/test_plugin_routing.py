"""meta/runtime.yml's redirects lead to plugins that exist, and each old name says when it goes."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = yaml.safe_load((ROOT / "meta" / "runtime.yml").read_text())


def test_every_redirect_leads_to_a_plugin_of_this_collection_that_exists():
    routing = RUNTIME["plugin_routing"]
    assert routing["modules"], routing
    for plugin_type, entries in routing.items():
        folder = {"modules": "modules", "action": "action"}[plugin_type]
        for old, route in entries.items():
            namespace, name, target = route["redirect"].split(".")
            assert (namespace, name) == ("multicloud", "federation"), route
            assert (ROOT / "plugins" / folder / (target + ".py")).is_file(), route
            assert not (ROOT / "plugins" / folder / (old + ".py")).exists(), "the old name still has a file: %s" % old


def test_kubeconfig_is_kubeconfig_file_until_1_0_0():
    module = RUNTIME["plugin_routing"]["modules"]["kubeconfig"]
    assert module["redirect"] == "multicloud.federation.kubeconfig_file"
    assert module["deprecation"]["removal_version"] == "1.0.0" and "kubeconfig_file" in module["deprecation"]["warning_text"]
    assert RUNTIME["plugin_routing"]["action"]["kubeconfig"]["redirect"] == "multicloud.federation.kubeconfig_file"
    # Not in the k8s action group: it takes file paths, not kubernetes.core's authentication options.
    assert "kubeconfig_file" not in RUNTIME["action_groups"]["k8s"]
