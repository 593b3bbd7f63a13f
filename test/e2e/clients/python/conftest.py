"""Fixtures for driving skiff with Debian's python3-kubernetes.

The node:test runner (../python-client.test.ts) starts `skiff server` and
passes its kubeconfig and node name in SKIFF_KUBECONFIG and SKIFF_NODE.
"""
import os
import time
import uuid

import pytest
from kubernetes import client, config


def wait_for(what, check, timeout=30.0, interval=0.1):
    """Polls check() until it returns something truthy, or fails at the deadline."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = check()
            if value:
                return value
        except Exception as err:  # noqa: BLE001 - reported at the deadline
            last = err
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {last!r}")
        time.sleep(interval)


@pytest.fixture(scope="session")
def api_client():
    api = config.new_client_from_config(config_file=os.environ["SKIFF_KUBECONFIG"])
    yield api
    api.close()


@pytest.fixture(scope="session")
def node_name():
    return os.environ["SKIFF_NODE"]


@pytest.fixture(scope="session")
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture(scope="session")
def apps(api_client):
    return client.AppsV1Api(api_client)


@pytest.fixture()
def namespace(core):
    name = f"py-{uuid.uuid4().hex[:8]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    core.delete_namespace(name)


def running_pod(core, namespace, node, name, command, ports=None):
    """Creates a pod on the node (the process runtime runs `command` from the host) and waits until it runs."""
    container = client.V1Container(name="main", image="busybox", command=command, ports=ports)
    pod = client.V1Pod(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1PodSpec(node_name=node, containers=[container], termination_grace_period_seconds=1),
    )
    core.create_namespaced_pod(namespace, pod)
    return wait_for(
        f"pod {name} to run",
        lambda: (p := core.read_namespaced_pod(name, namespace)).status.phase == "Running" and p,
    )
