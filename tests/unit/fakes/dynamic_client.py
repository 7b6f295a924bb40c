# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubernetes.core's K8SClient as ``access.cluster.Cluster`` drives it, scripted one answer per call: for the
tests of the access layer's discovery (an API that appears, disappears or is deleted since discovery)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from kubernetes.dynamic.exceptions import ResourceNotFoundError


class FakeResource(object):
    namespaced = True

    def __init__(self, responses):
        self.responses = responses

    def get(self, **params):
        response = self.responses.pop(0)
        if isinstance(response, Exception):
            raise response
        return response


class FakeResources(object):
    def __init__(self):
        self.invalidations = 0

    def invalidate_cache(self):
        self.invalidations += 1


class FakeClient(object):
    """kubernetes.core's K8SClient as Cluster uses it: resource(kind, api_version), get(resource)."""

    def __init__(self, served_after):
        self.served_after = served_after  # list of what resource() answers, one per call
        self.client = type("Dynamic", (), {})()
        self.client.resources = FakeResources()

    def resource(self, kind, api_version):
        answer = self.served_after.pop(0)
        if answer is None:
            raise ResourceNotFoundError("No matches found")
        return answer

    def get(self, resource, **params):
        assert params["_request_timeout"] == 30
        return resource.get(**params)
