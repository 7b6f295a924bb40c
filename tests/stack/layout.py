"""Where the stack keeps things: pinned versions, the build cache and the binaries in it.

Everything built from upstream Go modules lives outside the checkout, under the user's cache
directory, keyed by version, so a fresh clone (what CI runs on) reuses it.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

STACK_DIR = Path(__file__).resolve().parent
VERSIONS_FILE = STACK_DIR / "versions.toml"


def load_versions(path: Path = VERSIONS_FILE) -> dict[str, dict[str, str]]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def cache_root() -> Path:
    """Root of the build cache: $MCF_STACK_CACHE, else $XDG_CACHE_HOME or ~/.cache."""
    explicit = os.environ.get("MCF_STACK_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "multicloud-federation" / "stack"


# Which pinned versions each build component is made from (its cache key).
COMPONENT_INPUTS = {
    "data": ("karmada", "kruise", "kwok"),
    "helm": ("helm", "helm_diff"),
    "chart": ("kruise",),
    "kwok": ("kwok",),
    "etcd": ("etcd",),
    "kubernetes": ("kubernetes",),
    "karmada": ("karmada",),
    "kruise": ("kruise", "kubernetes"),
    # The reference runbook's Kruise: built inside its own module (its own k8s.io libraries), so
    # only its version keys it; its chart is assembled from its config/ by chart_runbook.
    "kruise_runbook": ("kruise_runbook",),
    "chart_runbook": ("kruise_runbook",),
    "oracle": ("karmada", "kruise", "kubernetes"),
    "kubeadmiral": ("kubeadmiral",),
}


@dataclass(frozen=True)
class Layout:
    """Paths of everything the build produces for one set of versions."""

    root: Path
    versions: dict

    def component_dir(self, component: str) -> Path:
        """Build output of one component, named by the versions it is built from."""
        used = "-".join(self.versions[name]["version"] for name in COMPONENT_INPUTS[component])
        return self.root / "components" / f"{component}-{used}"

    @property
    def bin_dir(self) -> Path:
        """One directory of symlinks to every built binary, for PATH."""
        return self.root / "bin"

    def binary(self, name: str) -> Path:
        return self.bin_dir / name

    @property
    def data_dir(self) -> Path:
        """Upstream data read from the modules at build time (CRDs, manifests, KWOK stages)."""
        return self.root / "data"

    @property
    def karmada_crds(self) -> Path:
        return self.data_dir / f"karmada-{self.versions['karmada']['version']}" / "crds"

    @property
    def karmada_webhook_configuration(self) -> Path:
        return self.data_dir / f"karmada-{self.versions['karmada']['version']}" / "webhook-configuration.yaml"

    @property
    def kruise_config(self) -> Path:
        return self.data_dir / f"kruise-{self.versions['kruise']['version']}" / "config"

    @property
    def kruise_runbook_config(self) -> Path:
        """The runbook's Kruise's config/ (kruise_runbook in versions.toml), read like kruise_config."""
        return self.data_dir / f"kruise-{self.versions['kruise_runbook']['version']}" / "config"

    @property
    def kwok_stages(self) -> Path:
        return self.data_dir / f"kwok-{self.versions['kwok']['version']}" / "stages.yaml"

    @property
    def kubeadmiral_crds(self) -> Path:
        """KubeAdmiral's core.kubeadmiral.io CRDs, as the module ships them."""
        return self.data_dir / f"kubeadmiral-{self.versions['kubeadmiral']['version']}" / "crds"

    @property
    def kubeadmiral_ftcs(self) -> Path:
        """The module's sample FederatedTypeConfigs, unedited (manifests.py edits them for the host)."""
        return self.data_dir / f"kubeadmiral-{self.versions['kubeadmiral']['version']}" / "ftc.yaml"

    @property
    def charts_dir(self) -> Path:
        return self.root / "charts"

    @property
    def kruise_chart(self) -> Path:
        """The Kruise chart assembled from the kruise module's manifests (reads daemon.affinity)."""
        return self.charts_dir / f"kruise-{self.versions['kruise']['version'].lstrip('v')}"

    @property
    def kruise_chart_no_affinity(self) -> Path:
        """Fixture chart that ignores daemon.affinity: exercises the toleration-removal mode."""
        return self.charts_dir / f"kruise-noaffinity-{self.versions['kruise']['version'].lstrip('v')}"

    @property
    def kruise_runbook_chart(self) -> Path:
        """The runbook's Kruise chart (kruise_runbook in versions.toml), assembled like kruise_chart."""
        return self.charts_dir / f"kruise-{self.versions['kruise_runbook']['version'].lstrip('v')}"

    def kruise_manager_binaries(self) -> dict[str, str]:
        """Image tag of the chart's manager pod -> the kruise-manager binary built for it: the
        stack's Kruise is plain ``kruise-manager``, the runbook's ``kruise-manager-<version>``."""
        return {
            self.versions["kruise"]["version"]: "kruise-manager",
            self.versions["kruise_runbook"]["version"]: f"kruise-manager-{self.versions['kruise_runbook']['version']}",
        }

    @property
    def helm_plugins(self) -> Path:
        """HELM_PLUGINS directory holding the helm-diff plugin."""
        return self.root / "helm-plugins"


def layout() -> Layout:
    return Layout(root=cache_root(), versions=load_versions())
