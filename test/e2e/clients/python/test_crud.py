"""Typed CRUD round trips, errors as ApiException, paging."""
import json

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException


def test_configmap_create_read_replace_patch_delete(core, namespace):
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings", labels={"app": "py"}), data={"a": "1"})
    created = core.create_namespaced_config_map(namespace, cm)
    assert created.metadata.uid and created.metadata.resource_version
    assert created.data == {"a": "1"}

    got = core.read_namespaced_config_map("settings", namespace)
    got.data["b"] = "2"
    replaced = core.replace_namespaced_config_map("settings", namespace, got)
    assert replaced.data == {"a": "1", "b": "2"}
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)

    patched = core.patch_namespaced_config_map("settings", namespace, {"data": {"c": "3"}})
    assert patched.data == {"a": "1", "b": "2", "c": "3"}

    # a stale replace is a 409 Conflict with upstream's Status body
    replaced.data["d"] = "4"
    with pytest.raises(ApiException) as stale:
        core.replace_namespaced_config_map("settings", namespace, replaced)
    assert stale.value.status == 409
    assert json.loads(stale.value.body)["reason"] == "Conflict"

    status = core.delete_namespaced_config_map("settings", namespace)
    assert status.status == "Success"
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map("settings", namespace)
    assert missing.value.status == 404
    body = json.loads(missing.value.body)
    assert body["reason"] == "NotFound"
    assert body["message"] == 'configmaps "settings" not found'


def test_service_round_trip_keeps_empty_structs(core, namespace):
    svc = client.V1Service(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1ServiceSpec(selector={"app": "web"}, ports=[client.V1ServicePort(port=80, target_port=8080)]),
    )
    created = core.create_namespaced_service(namespace, svc)
    assert created.spec.cluster_ip
    assert created.spec.ports[0].protocol == "TCP"
    assert created.spec.ports[0].target_port == 8080
    # Go always encodes the non-pointer status structs: typed clients see objects, not None
    assert isinstance(created.status, client.V1ServiceStatus)
    assert isinstance(created.status.load_balancer, client.V1LoadBalancerStatus)
    got = core.read_namespaced_service("web", namespace)
    assert isinstance(got.status.load_balancer, client.V1LoadBalancerStatus)
    got.metadata.labels = {"tier": "front"}
    replaced = core.replace_namespaced_service("web", namespace, got)
    assert replaced.metadata.labels == {"tier": "front"}
    assert replaced.spec.cluster_ip == created.spec.cluster_ip


def test_deployment_round_trip(apps, namespace):
    labels = {"app": "py-deploy"}
    dep = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-deploy"),
        spec=client.V1DeploymentSpec(
            replicas=0,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="main", image="busybox", command=["sleep", "3600"])]),
            ),
        ),
    )
    created = apps.create_namespaced_deployment(namespace, dep)
    assert isinstance(created.status, client.V1DeploymentStatus)
    assert created.spec.strategy.type == "RollingUpdate"
    assert created.spec.strategy.rolling_update.max_surge == "25%"
    assert created.spec.template.spec.restart_policy == "Always"
    scaled = apps.patch_namespaced_deployment_scale("py-deploy", namespace, {"spec": {"replicas": 1}})
    assert scaled.spec.replicas == 1
    # Go omits a zero int32 with omitempty: Scale's spec.replicas comes back absent, as from upstream
    assert apps.patch_namespaced_deployment_scale("py-deploy", namespace, {"spec": {"replicas": 0}}).spec.replicas is None
    apps.delete_namespaced_deployment("py-deploy", namespace, propagation_policy="Foreground", grace_period_seconds=0)


def test_list_with_selectors_and_paging(core, namespace):
    for i in range(5):
        core.create_namespaced_config_map(
            namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"page-{i}", labels={"page": "yes" if i % 2 == 0 else "no"}))
        )
    assert sorted(c.metadata.name for c in core.list_namespaced_config_map(namespace, label_selector="page=yes").items) == ["page-0", "page-2", "page-4"]
    names = []
    first = core.list_namespaced_config_map(namespace, label_selector="page", limit=2)
    names += [c.metadata.name for c in first.items]
    assert first.metadata._continue
    token = first.metadata._continue
    while token:
        page = core.list_namespaced_config_map(namespace, label_selector="page", limit=2, _continue=token)
        names += [c.metadata.name for c in page.items]
        token = page.metadata._continue
    assert names == [f"page-{i}" for i in range(5)]


def test_bad_query_values_are_upstreams_400(core, namespace):
    with pytest.raises(ApiException) as bad:
        core.api_client.call_api(
            "/api/v1/namespaces/{namespace}/configmaps", "GET", {"namespace": namespace}, [("limit", "lots")],
            {"Accept": "application/json"}, auth_settings=["BearerToken"], _preload_content=False,
        )
    assert bad.value.status == 400
    body = json.loads(bad.value.body)
    assert body["reason"] == "BadRequest"
    assert body["message"] == 'strconv.ParseInt: parsing "lots": invalid syntax'
