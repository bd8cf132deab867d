"""Real servers for the remote-cache tests, on 127.0.0.1 with ports chosen free, stopped after:
Debian's redis-server and nginx (its WebDAV module takes PUT), and two hostile ones written
here: one that accepts connections and never answers, one that answers garbage."""
import os
import shutil
import signal
import socket
import subprocess
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing(program):
    """Why a server cannot run here, or None."""
    for d in ("", "/usr/sbin/", "/usr/bin/"):
        if (d and os.access(d + program, os.X_OK)) or (not d and shutil.which(program)):
            return None
    return f"{program} is not installed (Debian package {'redis-server' if 'redis' in program else 'nginx'}; " \
           f"bash scripts/setup-deps installs it)"


def program(name):
    return shutil.which(name) or next(p for p in ("/usr/sbin/" + name, "/usr/bin/" + name) if os.access(p, os.X_OK))


def wait_for_port(port, proc, what, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} at start")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def stop_process(proc):
    """SIGTERM, and SIGKILL after 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Redis:
    """redis-server in the foreground, nothing saved to disk; `password` sets requirepass,
    `unix` listens on a socket in `work` as well."""

    def __init__(self, work, password=None, unix=False):
        self.port = free_port()
        self.password = password
        self.socket = os.path.join(work, f"redis-{self.port}.sock") if unix else None
        args = [program("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", work, "--logfile", os.path.join(work, f"redis-{self.port}.log")]
        if password:
            args += ["--requirepass", password]
        if self.socket:
            args += ["--unixsocket", self.socket, "--unixsocketperm", "700"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc, "redis-server")

    def url(self, db=0, password=None):
        pw = self.password if password is None else password
        return f"redis://{':' + pw + '@' if pw else ''}127.0.0.1:{self.port}/{db}"

    def command(self, *args):
        """One command through redis-cli; its raw output (bytes)."""
        cli = [program("redis-cli"), "-p", str(self.port), "--no-auth-warning"]
        if self.password:
            cli += ["-a", self.password]
        return subprocess.run(cli + [str(a) for a in args], capture_output=True, check=True, timeout=30).stdout

    def keys(self, db=0):
        out = self.command("-n", db, "--raw", "KEYS", "udfkit:*").decode()
        return sorted(k for k in out.split() if k)

    def get(self, key, db=0):
        return self.command("-n", db, "--raw", "GET", key)[:-1]  # --raw ends the value with a newline

    def set(self, key, value, db=0):
        cli = [program("redis-cli"), "-p", str(self.port), "--no-auth-warning", "-n", str(db), "-x", "SET", key]
        if self.password:
            cli[1:1] = ["-a", self.password]
        subprocess.run(cli, input=value, capture_output=True, check=True, timeout=30)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self):
        stop_process(self.proc)


NGINX_CONF = """daemon off;
master_process off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
{user}
events {{ worker_connections 256; }}
http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp;
    scgi_temp_path {root}/tmp;
    client_max_body_size 256m;
    server {{
        listen 127.0.0.1:{port};
        root {root}/store;
        location / {{
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }}
        location /basic/ {{
            auth_basic "udfkit";
            auth_basic_user_file {root}/htpasswd;
            dav_methods PUT;
            create_full_put_path on;
        }}
        location /team/ {{
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
            limit_except GET HEAD {{
                auth_basic "udfkit";
                auth_basic_user_file {root}/htpasswd;
            }}
        }}
        location /bearer/ {{
            if ($http_authorization != "Bearer {token}") {{ return 401; }}
            dav_methods PUT;
            create_full_put_path on;
        }}
    }}
}}
"""


class Nginx:
    """nginx as a WebDAV store: PUT and GET under /, basic auth under /basic/ (user `basic_user`
    with `basic_password`), a bearer token under /bearer/ (`token`), and under /team/ the set-up
    README.md gives: anyone reads, only `basic_user` writes."""

    def __init__(self, work, basic_user="builder", basic_password="pa55:word", token="t0ken-xyz"):
        self.port = free_port()
        self.root = os.path.join(work, f"nginx-{self.port}")
        self.store = os.path.join(self.root, "store")
        os.makedirs(os.path.join(self.root, "tmp"))
        os.makedirs(self.store)
        self.basic_user, self.basic_password, self.token = basic_user, basic_password, token
        hashed = subprocess.run(["openssl", "passwd", "-apr1", basic_password], capture_output=True, text=True,
                                check=True).stdout.strip()
        with open(os.path.join(self.root, "htpasswd"), "w") as f:
            f.write(f"{basic_user}:{hashed}\n")
        # As root, nginx's workers would run as nobody: keep them the tests' user.
        user = "user root;" if os.geteuid() == 0 else ""
        conf = os.path.join(self.root, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(root=self.root, port=self.port, user=user, token=token))
        self.proc = subprocess.Popen([program("nginx"), "-c", conf, "-e", os.path.join(self.root, "error.log")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc, "nginx")

    def url(self, prefix="cache"):
        return f"http://127.0.0.1:{self.port}/{prefix}"

    def files(self):
        return sorted(os.path.relpath(os.path.join(d, n), self.store) for d, _, names in os.walk(self.store)
                      for n in names)

    def stop(self):
        stop_process(self.proc)


class Hostile:
    """A TCP server that accepts and then never answers (`answer` None), or answers `answer`
    to whatever it is sent and closes."""

    def __init__(self, answer=None):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.answer = answer
        self.held = []
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        self.sock.settimeout(0.1)
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            if self.answer is None:
                self.held.append(conn)
                continue
            try:
                conn.settimeout(2)
                conn.recv(65536)
                conn.sendall(self.answer)
            except OSError:
                pass
            conn.close()

    def stop(self):
        self.running = False
        self.thread.join()
        for c in self.held:
            c.close()
        self.sock.close()
