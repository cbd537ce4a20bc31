"""Real git servers on 127.0.0.1 for the fetch tests: `git daemon`, `git http-backend` behind basic auth, `sshd`.

Each is started by a test and stopped when its `with` block ends; none listens beyond the loopback.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


def git_exec_path() -> Path:
    return Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited at start: {process.stderr.read() if process.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def _running(command: list[str], port: int) -> Iterator[None]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(port, process)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """Serves every repository under `base` read-only; yields `git://127.0.0.1:<port>`."""
    if not (git_exec_path() / "git-daemon").exists():
        pytest.skip("git daemon is not installed with this git")
    port = free_port()
    command = ["git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", f"--port={port}",
               f"--base-path={base}", str(base)]
    with _running(command, port):
        yield f"git://127.0.0.1:{port}"


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (openssl), for an HTTPS server; git trusts it
    through `GIT_SSL_CAINFO`."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


@contextmanager
def http_backend(base: Path, user: str, password: str, tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """`git http-backend` (smart HTTP) for the repositories under `base`, behind basic auth; yields the URL.
    With `tls` (a certificate and its key, from `certificate`), it speaks HTTPS."""
    backend = git_exec_path() / "git-http-backend"
    if not backend.exists():
        pytest.skip("git http-backend is not installed with this git")
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            self._serve()

        def do_POST(self):
            self._serve()

        def _serve(self):
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="rules"')
                self.send_header("Content-Length", "0")  # over TLS, curl reads no body to a close it may not see
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            env = {
                "PATH": os.environ["PATH"], "GIT_PROJECT_ROOT": str(base), "GIT_HTTP_EXPORT_ALL": "1",
                "PATH_INFO": path, "QUERY_STRING": query, "REQUEST_METHOD": self.command, "REMOTE_USER": user,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            }
            done = subprocess.run([str(backend)], input=body, env=env, capture_output=True, check=False)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            headers = [line.split(": ", 1) for line in head.decode("latin-1").split("\r\n") if ": " in line]
            status = next((int(value.split()[0]) for name, value in headers if name.lower() == "status"), 200)
            self.send_response(status)
            for name, value in headers:
                if name.lower() != "status":
                    self.send_header(name, value)
            if not any(name.lower() == "content-length" for name, _ in headers):
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers: what a hung server looks like to git. Yields its http URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


@contextmanager
def sshd(folder: Path, authorized_key: Path) -> Iterator[int]:
    """An sshd on 127.0.0.1 (a free port, a temp host key) letting in the holder of `authorized_key`.

    Yields the port; writes `folder/known_hosts` with the host key, for the client to trust it.
    """
    binary = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)
    if binary is None:
        pytest.skip("sshd is not installed (Debian: apt-get install openssh-server)")
    folder.mkdir(parents=True, exist_ok=True)
    host_key = folder / "host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], check=True)
    port = free_port()
    (folder / "known_hosts").write_text(f"[127.0.0.1]:{port} {(folder / 'host_key.pub').read_text().strip()}\n")
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {folder / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {authorized_key}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nPubkeyAuthentication yes\n"
    )
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
    with _running([binary, "-D", "-e", "-f", str(config)], port):
        yield port


def wait_for_socket(path: Path) -> None:
    deadline = time.monotonic() + 10
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"no socket at {path}")
        time.sleep(0.02)
