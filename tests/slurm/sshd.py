"""A real OpenSSH server on localhost for the login-host tests, on a private port with keys made for
the test, optionally in its own mount namespace with a tmpfs over a directory (a login host that
does not share that filesystem). Reached as host `allo-login` through an `ssh` on PATH that reads
the test's client configuration (ssh itself reads only the real home's ~/.ssh/config)."""

from __future__ import annotations

import os
import selectors
import shlex
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = "/usr/sbin/sshd"
HOST = "allo-login"
START_S = 20.0


def missing() -> str | None:
    """Why no sshd can be started here, or None."""
    if os.geteuid() != 0:
        return "not root (sshd and mount namespaces need root)"
    for tool in (SSHD, shutil.which("ssh"), shutil.which("ssh-keygen"), shutil.which("unshare")):
        if not tool or not os.path.exists(tool):
            return "openssh-server, openssh-client or unshare is not installed (.ci/run installs them)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Sshd:
    process: subprocess.Popen
    bin_dir: Path  # put first on PATH: its `ssh` reads the test's client configuration

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)


def start(directory: Path, hide: Path | None = None) -> Sshd:
    """sshd on a free port of 127.0.0.1; with `hide`, in its own mount namespace with an empty
    tmpfs over `hide` (what its sessions see there is not what this machine has)."""
    directory.mkdir(parents=True, exist_ok=True)
    for key in ("host", "user"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / key)], check=True)
    (directory / "authorized_keys").write_text((directory / "user.pub").read_text())
    port = _free_port()
    config = directory / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {directory / 'host'}\nPidFile none\n"
        f"AuthorizedKeysFile {directory / 'authorized_keys'}\nStrictModes no\nUsePAM no\n"
        "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
    )
    host_key = (directory / "host.pub").read_text().split()
    (directory / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    (directory / "ssh_config").write_text(
        f"Host {HOST}\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentityFile {directory / 'user'}\n"
        f"  IdentitiesOnly yes\n  UserKnownHostsFile {directory / 'known_hosts'}\n  StrictHostKeyChecking yes\n"
    )
    bin_dir = directory / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "ssh"
    wrapper.write_text(f'#!/bin/sh\nexec {shutil.which("ssh")} -F {directory / "ssh_config"} "$@"\n')
    wrapper.chmod(0o755)
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # its privilege separation directory
    argv = [SSHD, "-D", "-e", "-f", str(config)]
    if hide is not None:
        script = f"mount -t tmpfs tmpfs {shlex.quote(str(hide))} && exec {shlex.join(argv)}"
        argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script]
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _until_listening(process)
    return Sshd(process, bin_dir)


def _until_listening(process: subprocess.Popen) -> None:
    """Until sshd logs that it listens (-e: its log on stderr); its log when it exits or the time is up."""
    deadline, seen = time.monotonic() + START_S, b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while b"Server listening on" not in seen:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                process.kill()
                raise AssertionError(f"sshd did not listen in {START_S:g} s: {seen.decode(errors='replace')}")
            chunk = os.read(process.stderr.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"sshd exited {process.wait()}: {seen.decode(errors='replace')}")
            seen += chunk
