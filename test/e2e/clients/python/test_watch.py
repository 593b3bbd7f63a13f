"""watch.Watch().stream and an informer-style list + watch."""
import threading

from kubernetes import client, watch


# every namespace also holds the kube-root-ca.crt ConfigMap (root-ca-cert-publisher), as upstream
ROOT_CA = "kube-root-ca.crt"


def test_watch_stream_sees_added_modified_deleted(core, namespace):
    w = watch.Watch()
    seen = []
    # the watch starts from a list's resourceVersion, so every change made after
    # the list reaches it however late the stream connects (a watch without one
    # would start with the then-current state as ADDED)
    rv = core.list_namespaced_config_map(namespace).metadata.resource_version

    def consume():
        # timeout_seconds is the server's deadline; the client closes earlier once it has seen the delete
        for event in w.stream(core.list_namespaced_config_map, namespace, resource_version=rv, timeout_seconds=60):
            if event["object"].metadata.name == ROOT_CA:
                continue
            seen.append((event["type"], event["object"].metadata.name, event["object"].data))
            if event["type"] == "DELETED":
                w.stop()

    t = threading.Thread(target=consume)
    t.start()
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="watched"), data={"v": "1"}))
    core.patch_namespaced_config_map("watched", namespace, {"data": {"v": "2"}})
    core.delete_namespaced_config_map("watched", namespace)
    t.join(30)
    assert not t.is_alive()
    assert seen == [("ADDED", "watched", {"v": "1"}), ("MODIFIED", "watched", {"v": "2"}), ("DELETED", "watched", {"v": "2"})]


def test_informer_style_list_then_watch_from_resource_version(core, namespace):
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="before")))
    listed = core.list_namespaced_config_map(namespace)
    cache = {c.metadata.name: c for c in listed.items if c.metadata.name != ROOT_CA}
    rv = listed.metadata.resource_version
    assert "before" in cache

    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="after")))
    core.delete_namespaced_config_map("before", namespace)

    w = watch.Watch()
    bookmarks = 0
    for event in w.stream(
        core.list_namespaced_config_map, namespace, resource_version=rv, allow_watch_bookmarks=True, timeout_seconds=30
    ):
        obj = event["object"]
        if event["type"] == "BOOKMARK":
            bookmarks += 1
            continue
        if obj.metadata.name == ROOT_CA:
            continue
        if event["type"] == "DELETED":
            cache.pop(obj.metadata.name, None)
        else:
            cache[obj.metadata.name] = obj
        if set(cache) == {"after"}:
            w.stop()
    assert set(cache) == {"after"}


def test_raw_watch_lines_are_watch_events(core, namespace):
    """watch=True (Python's spelling) is a watch, not a list."""
    resp = core.list_namespaced_config_map(namespace, watch=True, timeout_seconds=1, _preload_content=False)
    body = resp.data.decode()
    resp.release_conn()
    # an empty namespace: the watch ends after its timeout with no events, and never answers a ConfigMapList
    assert "ConfigMapList" not in body
