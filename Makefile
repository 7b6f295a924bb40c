# multicloud.federation: the two commands a newcomer types are `make demo` and `make test`.
# Every other target is a step of those two; `make help` lists them.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules

ROOT := $(abspath .)
VENV := $(ROOT)/.venv
VENV_STAMP := $(VENV)/.requirements.stamp
# The oldest ansible-core meta/runtime.yml supports (tests/unit/requirements-oldest.txt), in a venv of its own.
VENV_OLDEST := $(ROOT)/.venv-oldest
VENV_OLDEST_STAMP := $(VENV_OLDEST)/.requirements.stamp
PY := $(VENV)/bin/python
BUILD := $(ROOT)/.build
COLLECTION := $(BUILD)/ansible_collections/multicloud/federation
# ansible-test refuses a symlinked collection (it resolves its working directory), so it gets a
# copy of the working tree's files (tracked and untracked, minus .gitignore'd) in its own root.
TEST_ROOT := $(BUILD)/ansible-test/ansible_collections
TEST_COLLECTION := $(TEST_ROOT)/multicloud/federation
# `make sanity-oldest` has a copy of its own, so that it can run beside `make sanity` and `make units`.
TEST_ROOT_OLDEST := $(BUILD)/ansible-test-oldest/ansible_collections
TEST_COLLECTION_OLDEST := $(TEST_ROOT_OLDEST)/multicloud/federation
KUBERNETES_CORE = $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/ansible_collections/kubernetes/core
# ansible-test runs one Python: the venv's (3.13 on the reference machine).
TEST_PYTHON ?= 3.13
# ansible-test 2.19 runs its controller on Python 3.11-3.13 (CONTROLLER_PYTHON_VERSIONS): 3.13 is .venv-oldest's.
TEST_PYTHON_OLDEST ?= 3.13
LOCAL_INVENTORY := inventories/local/hosts.yml

# `multicloud.federation.*` resolves from .build; kubernetes.core from the `ansible` bundle in the venv.
export ANSIBLE_COLLECTIONS_PATH := $(BUILD)
export ANSIBLE_CONFIG := $(ROOT)/ansible.cfg
export PATH := $(VENV)/bin:$(PATH)

.PHONY: help venv collection test-tree test-tree-oldest stack-build stack-up stack-down stack-status lint sanity sanity-oldest \
        units units-oldest \
        integration molecule bench ee-collection ee-context test demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

# --- Python environment -------------------------------------------------------------------------
# The newest Python >= 3.12 on the machine: ansible 13+ (ansible-core 2.20+) needs it.
# Candidates: pyenv installs, then python3.X on PATH. Exactly one code path: no fallback to an
# older ansible.
define find_python
best=""; best_v=0; \
for c in $$HOME/.pyenv/versions/3.*/bin/python3 \
         $$(command -v python3.14 python3.13 python3.12 python3 2>/dev/null || true); do \
  [ -x "$$c" ] || continue; \
  v=$$("$$c" -c 'import sys; print(sys.version_info[0]*100+sys.version_info[1])' 2>/dev/null) || continue; \
  if [ "$$v" -ge 312 ] && [ "$$v" -gt "$$best_v" ]; then best="$$c"; best_v="$$v"; fi; \
done; \
if [ -z "$$best" ]; then \
  echo "error: no Python >= 3.12 found (ansible 14 needs it)." >&2; \
  echo "  Install one, e.g. 'pyenv install 3.13' or 'apt-get install python3.13 python3.13-venv'," >&2; \
  echo "  then run 'make venv' again." >&2; \
  exit 1; \
fi
endef

venv: $(VENV_STAMP) ## .venv with the newest Python >= 3.12 and the pinned requirements.txt

# Re-runs only when requirements.txt changes (the stamp is newer otherwise).
$(VENV_STAMP): requirements.txt
	@$(find_python); \
	if [ ! -x $(PY) ] || ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then \
	  echo "creating .venv with $$best ($$("$$best" --version))"; \
	  rm -rf $(VENV); "$$best" -m venv $(VENV); \
	fi
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# --- the collection at ansible_collections/<namespace>/<name>, without Galaxy -----------------
# A symlink, so playbooks always run the working tree. kubernetes.core is linked beside it from the
# `ansible` bundle in the venv (ansible-test only looks for dependencies in the same root).
collection: venv ## make multicloud.federation (and kubernetes.core) resolvable under .build/
	@mkdir -p $(BUILD)/ansible_collections/multicloud $(BUILD)/ansible_collections/kubernetes
	@# Only when missing or stale: make test's two check chains may both pass here at once.
	@[ "$$(readlink $(COLLECTION))" = "$(ROOT)" ] || ln -sfn $(ROOT) $(COLLECTION)
	@core="$(KUBERNETES_CORE)"; [ "$$(readlink $(BUILD)/ansible_collections/kubernetes/core)" = "$$core" ] \
	  || ln -sfn "$$core" $(BUILD)/ansible_collections/kubernetes/core
	@test -f $(COLLECTION)/galaxy.yml && test -f $(BUILD)/ansible_collections/kubernetes/core/MANIFEST.json

# The copy ansible-test runs in, $(1)/multicloud/federation with kubernetes.core beside it, refreshed on
# every use so it matches the working tree. $(2): the Python of the ansible-test that runs in it, $(3): the
# Python version it runs (they give the pip version whose bootstrap script ansible-test looks for).
define test_tree
@rm -rf $(1)/multicloud/federation && mkdir -p $(1)/multicloud/federation $(1)/kubernetes
@ln -sfn "$(KUBERNETES_CORE)" $(1)/kubernetes/core
@git ls-files -z --cached --others --exclude-standard \
  | tar --null --files-from=- --ignore-failed-read -cf - | tar -C $(1)/multicloud/federation -xf -
@# ansible-test lists files with git from the nearest .git upwards; without its own it would
@# find the checkout's, where .build is ignored, and test nothing.
@git -C $(1)/multicloud/federation init -q
@# ansible-test downloads a pip bootstrap script from a host that is unreachable here unless
@# it finds one in its cache: give it ours (.ci/get_pip_offline.py says how it works).
@mkdir -p $(HOME)/.ansible/test/cache
@cp .ci/get_pip_offline.py $(HOME)/.ansible/test/cache/get_pip_$$($(2) -c \
  'from ansible_test._internal.python_requirements import get_venv_packages as g; \
  print(g(type("P", (), {"version": "$(3)"})())["pip"].replace(".", "_"))').py
endef

test-tree: venv
	$(call test_tree,$(TEST_ROOT),$(PY),$(TEST_PYTHON))

# The same for the oldest ansible-core's ansible-test; kubernetes.core is the same one (.venv-oldest has
# ansible-core only: `make units-oldest` and Molecule find kubernetes.core in .build too).
test-tree-oldest: venv $(VENV_OLDEST_STAMP)
	$(call test_tree,$(TEST_ROOT_OLDEST),$(VENV_OLDEST)/bin/python,$(TEST_PYTHON_OLDEST))

# --- local stack (tests/stack, real upstream binaries as plain processes) ----------------------
stack-build: ## build/cache the upstream binaries (python3 -m tests.stack build)
	python3 -m tests.stack build

stack-up: venv ## start the local federation stack; writes inventories/local/hosts.yml
	$(PY) -m tests.stack up

stack-down: venv ## stop the local stack
	$(PY) -m tests.stack down

stack-status: venv ## show the local stack's processes
	$(PY) -m tests.stack status

# --- checks --------------------------------------------------------------------------------------
lint: collection ## ansible-lint (production profile) and the changelog fragments
	ansible-lint --offline
	antsibull-changelog lint

# ansible-test must run with the collection root as its working directory; --venv because there
# is no Docker (ansible-test installs its pinned sanity tools into its own venvs, cached in ~/.ansible/test).
sanity: test-tree ## ansible-test sanity (Python $(TEST_PYTHON))
	cd $(TEST_COLLECTION) && ansible-test sanity --venv --python $(TEST_PYTHON) --color no

# The same on the oldest ansible-core (.venv-oldest's ansible-test, which reads tests/sanity/ignore-2.19.txt),
# in its own copy: it can run at the same time as `make sanity` and `make units`.
sanity-oldest: test-tree-oldest ## ansible-test sanity on the oldest supported ansible-core (.venv-oldest)
	cd $(TEST_COLLECTION_OLDEST) && $(VENV_OLDEST)/bin/ansible-test sanity --venv --python $(TEST_PYTHON_OLDEST) --color no

# ansible-test units runs tests/unit with tests/unit/requirements.txt in its own venv; the second
# pass runs the same tests with the pinned .venv, i.e. the library versions users get from make venv,
# in one process (tests/unit/conftest.py gives module tests a module process's warning state).
units: test-tree ## ansible-test units + pytest of tests/unit with the pinned .venv
	cd $(TEST_COLLECTION) && ansible-test units --venv --python $(TEST_PYTHON) --color no
	cd $(TEST_COLLECTION) && PYTHONPATH=$(abspath $(TEST_ROOT)/..) \
	  $(PY) -m pytest -p no:cacheprovider --import-mode=importlib -q tests/unit

# The oldest ansible-core meta/runtime.yml supports (tests/unit/requirements-oldest.txt): the same unit tests
# in their own venv, with the collection and kubernetes.core (requires_ansible >= 2.16) from .build.
$(VENV_OLDEST_STAMP): tests/unit/requirements-oldest.txt tests/unit/requirements.txt
	@$(find_python); [ -x $(VENV_OLDEST)/bin/python ] || "$$best" -m venv $(VENV_OLDEST)
	cd tests/unit && $(VENV_OLDEST)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-oldest.txt
	touch $@

units-oldest: collection $(VENV_OLDEST_STAMP) ## pytest of tests/unit on the oldest supported ansible-core
	PYTHONPATH=$(BUILD) $(VENV_OLDEST)/bin/python -m pytest -p no:cacheprovider --import-mode=importlib -q tests/unit

integration: collection stack-build stack-up $(VENV_OLDEST_STAMP) ## integration tests against the local stack (some runs on the oldest ansible-core), then Molecule
	$(PY) -m pytest -q --durations=25 tests/integration tests/stack/tests
	$(MAKE) molecule

# extensions/molecule/default: converge (site.yml), idempotence, verify on the running local stack; no
# create/destroy (the stack is the platform). The stack's environment puts helm (with helm-diff) on PATH.
# Molecule runs `ansible-playbook` from PATH: the oldest ansible-core the collection supports (.venv-oldest,
# 2.19), so that every module of site.yml runs on real clusters on it too (the integration tests run 2.21).
molecule: collection stack-up $(VENV_OLDEST_STAMP) ## molecule test: site.yml on the local stack with the oldest ansible-core, its idempotence, an independent verify
	eval "$$($(PY) -m tests.stack env)" && export PATH="$(VENV_OLDEST)/bin:$$PATH" && ansible-playbook --version | head -n 1 \
	  && $(VENV)/bin/molecule test --scenario-name default

# Timings are not tests: `make bench` is not part of `make test`. It takes the stack to Karmada only
# (and 4 members) while it measures, and leaves it as `make test` expects it. BENCH_ARGS: e.g.
# --rounds 1 --members 2. Then bench.failover (BENCH_FAILOVER_ARGS, e.g. --outages refused): a member
# lost and back, RTO and failback per outage kind.
bench: collection stack-build ## the runbook's wall time against a plain kubectl/helm script, and disaster recovery's RTO (bench/results/)
	eval "$$($(PY) -m tests.stack env)" && $(PY) -m bench.run $(BENCH_ARGS)
	eval "$$($(PY) -m tests.stack env)" && $(PY) -m bench.failover $(BENCH_FAILOVER_ARGS)

# --- execution environment (ansible-builder; building the image needs podman or docker) ---------
EE_BUILD := $(BUILD)/ee

ee-collection: venv ## the collection tarball the execution environment installs (.build/ee/)
	@mkdir -p $(EE_BUILD)
	@rm -f $(EE_BUILD)/multicloud-federation-*.tar.gz
	ansible-galaxy collection build --force --output-path $(EE_BUILD) .
	mv $(EE_BUILD)/multicloud-federation-*.tar.gz $(EE_BUILD)/multicloud-federation.tar.gz

# ansible-builder only warns about an additional_build_files source with no match and exits 0, so the
# tarball is checked before `create` (ee-collection makes it; `make -o ee-collection ee-context` uses one
# already built) and in the context after it. The context is made afresh: a stale copy hides nothing.
EE_TARBALL := $(EE_BUILD)/multicloud-federation.tar.gz
ee-context: ee-collection ## the execution environment's build context (.build/ee/context, ansible-builder create)
	@test -f $(EE_TARBALL) || { echo "error: $(EE_TARBALL) is missing: the execution environment installs this collection from it; make ee-collection builds it (make ee-context runs it first)" >&2; exit 1; }
	rm -rf $(EE_BUILD)/context
	ansible-builder create --file execution-environment.yml --context $(EE_BUILD)/context --output-filename Containerfile
	@test -f $(EE_BUILD)/context/_build/collections/multicloud-federation.tar.gz || { echo "error: ansible-builder did not copy $(EE_TARBALL) into $(EE_BUILD)/context (additional_build_files in execution-environment.yml)" >&2; exit 1; }

# --- Galaxy / Automation Hub ----------------------------------------------------------------------
# galaxy-importer gets its own venv (tests/galaxy/requirements.txt): it pins attrs and flake8 below .venv's, and
# an import worker has ansible-core and no other collection, which is what the import has to work with.
GALAXY_VENV := $(ROOT)/.venv-galaxy
GALAXY_VENV_STAMP := $(GALAXY_VENV)/.requirements.stamp
DIST := $(BUILD)/dist

$(GALAXY_VENV_STAMP): tests/galaxy/requirements.txt
	@$(find_python); [ -x $(GALAXY_VENV)/bin/python ] || "$$best" -m venv $(GALAXY_VENV)
	$(GALAXY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r tests/galaxy/requirements.txt
	touch $@

.PHONY: dist galaxy-import
dist: collection ## the tarball for Galaxy / Automation Hub (.build/dist/, module docs rendered)
	$(PY) tools/galaxy_dist.py --output-path $(DIST)

# The tarball's file list and size, then galaxy-importer on it as Galaxy runs it (tests/galaxy/check_import.py).
galaxy-import: dist $(GALAXY_VENV_STAMP) ## galaxy-importer on the dist tarball; its file list and size
	MCF_TARBALL="$$(ls $(DIST)/*.tar.gz)" $(PY) -m pytest -p no:cacheprovider --import-mode=importlib -q \
	  tests/unit/test_collection_tarball.py
	$(GALAXY_VENV)/bin/python tests/galaxy/check_import.py $(DIST)/*.tar.gz \
	  --reference-ansible-doc $(VENV)/bin/ansible-doc --reference-collections-path $(BUILD)

test: ## lint, sanity and units (newest and oldest ansible-core), Galaxy import, integration (what .ci/run runs)
	@# The venvs first (side by side: each its own directory); then the checks in two chains that share no files, side by side
	@# (ansible-test's in the test tree; lint, the tarball, the oldest core's units in the checkout, then the
	@# oldest core's sanity in a test tree of its own),
	@# each chain's output printed whole when it ends; make stops after both if either fails.
	$(MAKE) --output-sync=recurse -j3 collection $(VENV_OLDEST_STAMP) $(GALAXY_VENV_STAMP)
	$(MAKE) --output-sync=recurse -j2 checks-tree checks-checkout
	$(MAKE) integration

.PHONY: checks-tree checks-checkout
checks-tree:
	$(MAKE) sanity
	$(MAKE) units

checks-checkout:
	$(MAKE) lint
	$(MAKE) galaxy-import
	$(MAKE) units-oldest
	$(MAKE) sanity-oldest

demo: collection stack-build stack-up ## start the local stack, run site.yml against it, print the verification
	@# The stack's environment puts its helm (with the helm-diff plugin) and kubectl on PATH, as a
	@# platform engineer's workstation would have them.
	eval "$$($(PY) -m tests.stack env)" && ansible-playbook -i $(LOCAL_INVENTORY) site.yml -e verify_report_dir=$(ROOT)/reports
	@echo
	@echo "== verification (written by the verify step) =="
	@cat reports/verify-*.md 2>/dev/null || echo "no verification report: the verify step did not run"

clean: ## remove .build (not the venv, not the stack cache)
	rm -rf $(BUILD)
