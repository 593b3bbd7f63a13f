"""exec through stream(), log follow and port-forward over WebSocket."""
import os
import socket
import time

from kubernetes.stream import portforward, stream

from conftest import running_pod, wait_for


def test_exec_stdout_stderr_and_exit_code(core, namespace, node_name):
    running_pod(core, namespace, node_name, "shell", ["sh", "-c", "sleep 3600"])
    resp = stream(
        core.connect_get_namespaced_pod_exec, "shell", namespace,
        command=["sh", "-c", "echo out; echo err >&2; exit 3"],
        stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False,
    )
    resp.run_forever(timeout=30)
    assert resp.read_stdout() == "out\n"
    assert resp.read_stderr() == "err\n"
    assert resp.returncode == 3
    resp.close()


def test_exec_preloaded_output(core, namespace, node_name):
    running_pod(core, namespace, node_name, "shell", ["sh", "-c", "sleep 3600"])
    out = stream(core.connect_get_namespaced_pod_exec, "shell", namespace, command=["echo", "hello", "python"], stderr=True, stdin=False, stdout=True, tty=False)
    assert out == "hello python\n"


def test_exec_with_stdin(core, namespace, node_name):
    running_pod(core, namespace, node_name, "shell", ["sh", "-c", "sleep 3600"])
    resp = stream(core.connect_get_namespaced_pod_exec, "shell", namespace, command=["cat"], stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
    resp.write_stdin("ping\n")
    line = wait_for("cat to echo", lambda: resp.update(timeout=1) or resp.peek_stdout() and resp.read_stdout(), timeout=20)
    assert line == "ping\n"
    resp.close()


def test_log_follow_streams_new_lines(core, namespace, node_name):
    running_pod(core, namespace, node_name, "ticker", ["sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done"])
    resp = core.read_namespaced_pod_log("ticker", namespace, follow=True, _preload_content=False)
    lines = []
    started = time.monotonic()
    for chunk in resp.stream(64):
        lines += [l for l in chunk.decode().split("\n") if l]
        if len(lines) >= 8:
            break
        assert time.monotonic() - started < 30, "follow stopped delivering lines"
    resp.release_conn()
    # follow keeps the response open while the container runs: more lines than existed when it started
    assert lines[0] == "tick 0"
    assert [int(l.split()[1]) for l in lines[:8]] == list(range(8))


def test_log_options(core, namespace, node_name):
    running_pod(core, namespace, node_name, "counter", ["sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done; sleep 3600"])
    wait_for("the lines", lambda: core.read_namespaced_pod_log("counter", namespace).count("\n") == 5)
    assert core.read_namespaced_pod_log("counter", namespace, tail_lines=2) == "line 4\nline 5\n"
    stamped = core.read_namespaced_pod_log("counter", namespace, timestamps=True, tail_lines=1)
    assert stamped.endswith(" line 5\n") and stamped[:4].isdigit()


def test_port_forward(core, namespace, node_name):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serve = f"require('http').createServer((q, s) => s.end('hello ' + q.url)).listen({port}, '127.0.0.1')"
    running_pod(core, namespace, node_name, "web", [os.environ["SKIFF_NODE_BIN"], "-e", serve])
    def fetch():
        pf = portforward(core.connect_get_namespaced_pod_portforward, "web", namespace, ports=str(port))
        sock = pf.socket(port)
        sock.settimeout(10)
        sock.sendall(b"GET /py HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            part = sock.recv(4096)
            if not part:
                break
            data += part
        sock.close()
        error = pf.error(port)
        pf.close()
        return data.decode(), error
    body, error = wait_for("the server in the pod to answer", lambda: (r := fetch())[0].endswith("hello /py") and r, timeout=30)
    assert body.startswith("HTTP/1.1 200")
    assert error is None
