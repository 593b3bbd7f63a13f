"""utils.create_from_yaml on multi-document files, the dynamic and discovery clients."""
import json

import pytest
from kubernetes import client, dynamic, utils
from kubernetes.client.rest import ApiException

MANIFEST = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  k: v
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: from-yaml
spec:
  replicas: 0
  selector:
    matchLabels: {app: from-yaml}
  template:
    metadata:
      labels: {app: from-yaml}
    spec:
      containers:
      - name: main
        image: busybox
        command: [sleep, "3600"]
---
apiVersion: v1
kind: Service
metadata:
  name: from-yaml
spec:
  selector: {app: from-yaml}
  ports:
  - port: 80
"""


def test_create_from_yaml_multi_document_and_conflicts(api_client, core, apps, namespace, tmp_path):
    path = tmp_path / "app.yaml"
    path.write_text(MANIFEST)
    created = utils.create_from_yaml(api_client, str(path), namespace=namespace)
    kinds = [type(o[0]).__name__ for o in created]
    assert kinds == ["V1ConfigMap", "V1Deployment", "V1Service"]
    assert apps.read_namespaced_deployment("from-yaml", namespace).spec.replicas == 0

    # the same file again: every document conflicts, and the error lists each 409
    core.delete_namespaced_config_map("first", namespace)
    with pytest.raises(utils.FailToCreateError) as failed:
        utils.create_from_yaml(api_client, str(path), namespace=namespace)
    statuses = sorted(e.status for e in failed.value.api_exceptions)
    assert statuses == [409, 409]
    # the document that did not conflict was still created
    assert core.read_namespaced_config_map("first", namespace).data == {"k": "v"}


def test_dynamic_client_crud(api_client, namespace):
    dyn = dynamic.DynamicClient(api_client)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    assert cms.namespaced and cms.name == "configmaps"
    cms.create(body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn"}, "data": {"a": "b"}}, namespace=namespace)
    got = cms.get(name="dyn", namespace=namespace)
    assert got.data.a == "b"
    listed = cms.get(namespace=namespace)
    # every namespace also holds the kube-root-ca.crt ConfigMap (root-ca-cert-publisher), as upstream
    assert [i.metadata.name for i in listed.items if i.metadata.name != "kube-root-ca.crt"] == ["dyn"]
    patched = cms.patch(name="dyn", namespace=namespace, body={"data": {"c": "d"}}, content_type="application/merge-patch+json")
    assert patched.data.c == "d"
    # v22's REST layer sends a non-JSON content type only for a body already serialized (JSON is valid YAML)
    applied = cms.server_side_apply(
        body=json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn"}, "data": {"e": "f"}}),
        name="dyn", namespace=namespace, field_manager="py", force_conflicts=True,
    )
    assert applied.data.e == "f"
    deps = dyn.resources.get(api_version="apps/v1", kind="Deployment")
    assert deps.group_version == "apps/v1"
    cms.delete(name="dyn", namespace=namespace)
    with pytest.raises(dynamic.exceptions.NotFoundError):
        cms.get(name="dyn", namespace=namespace)


def test_discovery(api_client):
    assert "v1" in client.CoreApi(api_client).get_api_versions().versions
    groups = {g.name: g for g in client.ApisApi(api_client).get_api_versions().groups}
    assert groups["apps"].preferred_version.group_version == "apps/v1"
    resources = {r.name: r for r in client.AppsV1Api(api_client).get_api_resources().resources}
    assert "deployments/scale" in resources and resources["deployments"].namespaced
    assert client.VersionApi(api_client).get_code().major == "1"


def test_apis_raise_typed_errors(core):
    with pytest.raises(ApiException) as err:
        core.read_namespace("does-not-exist")
    assert err.value.status == 404
