"""Settings the client sends (`alloDataflow.*` in VS Code), as a typed, defaulted dataclass.

Bad input never stops the server: each bad value is reported and replaced by its default; an
answer that is not an object at all is `Unreadable` (the server keeps the settings it had). Trust
fails closed: the workspace is untrusted unless the answer read says `trusted: true`. The path
settings are expanded here, as they are read (`expand_path`): everything after sees the path used.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from allo_lsp.jobs.environment import JobConfig
    from allo_lsp.jobs.slurm import SlurmConfig
    from allo_lsp.jobs.synthesis import SynthConfig

from allo_lsp.protocol.job_values import clock_error, part_error
from allo_lsp.protocol.vocabulary import ALLO_BUILDS, BACKENDS, LOG_LEVELS, SCHEDULERS, SECTION, VITIS_COMMANDS

_CHOICES = {
    "allo_build": ("alloBuild", ALLO_BUILDS),
    "backend": ("backend", BACKENDS),  # the key as written, choices
    "vitis_command": ("vitis.command", VITIS_COMMANDS),
    "log_level": ("logLevel", LOG_LEVELS),
    "scheduler": ("scheduler", SCHEDULERS),
}
# sbatch --time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
_SLURM_TIME = re.compile(r"\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}")
# ssh's HOST argument: [user@]host, ASCII letters, digits and . _ - : (IPv6); never starting with
# '-' (ssh would read an option: `-oProxyCommand=...` runs a command), no space or control character.
_LOGIN_HOST = re.compile(r"(?:[A-Za-z0-9._][A-Za-z0-9._-]*@)?[A-Za-z0-9._:][A-Za-z0-9._:-]*", re.ASCII)
# VS Code nests a dotted key one object per dot (`vitis.clockNs`: 2 levels, the deepest of ours);
# deeper than this is nobody's setting, and is not read (Python's recursion limit is never near).
MAX_DEPTH = 16
_MAX_WARNINGS = 10  # then one line says how many more


def _is_number(value: Any, whole: bool = False) -> bool:
    """A JSON number (an integer if `whole`): booleans are not numbers here, as in JSON."""
    return isinstance(value, int if whole else (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True, kw_only=True)
class Settings:
    allo_build: str = "auto"  # which Allo the user runs: auto (unknown), fixed, legacy
    debounce_ms: int = 0  # opt-in quiet time after an edit before it is analysed (`session/scheduler.py`)
    python: str = ""  # the Allo environment's interpreter; empty: the server's own
    llvm_build_dir: str = ""  # empty: $LLVM_BUILD_DIR of the server's environment
    omp_threads: int = 0  # 0: the design's PE count
    timeout: float = 300.0  # seconds before a job is killed
    backend: str = "auto"  # auto, allo or reference
    emulate: str = ""  # reference backend: "aie", "csim" or "aie,csim" run functionally (runner/reference/emulate.py)
    trusted: bool = False  # jobs run only once the client has said the workspace is trusted
    vitis_command: str = "vitis_hls"  # or "vitis-run" (Vitis 2024.2+)
    vitis_part: str = ""  # empty: the part Allo writes
    vitis_clock_ns: float = 0.0  # 0: the clock Allo writes
    vitis_launcher_prefix: str = ""  # e.g. "srun -p fpga -t 4:00:00" or "ssh build-host"
    vitis_timeout: float = 4 * 3600.0
    log_level: str = "info"  # what the server sends to the editor's log (`ide/log_lines.py`)
    scheduler: str = "local"  # who runs synthesis: local (a child of the server) or slurm (`jobs/slurm_jobs.py`)
    slurm_partition: str = ""  # empty: the cluster's default partition
    slurm_time: str = ""  # sbatch --time; empty: the partition's default
    slurm_cpus: int = 0  # sbatch --cpus-per-task; 0: Slurm's default
    slurm_mem: str = ""  # sbatch --mem, e.g. 16G
    slurm_extra_args: str = ""  # more sbatch options
    slurm_login_host: str = ""  # run the Slurm commands as `ssh HOST ...`
    sweep_max_points: int = 256  # a larger sweep is refused (`jobs/sweep.py: MAX_POINTS`)

    def __post_init__(self) -> None:
        for name, (key, choices) in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise ValueError(f"{key} must be one of {', '.join(choices)}")
        if not (_is_number(self.debounce_ms, whole=True) and 0 <= self.debounce_ms <= 10_000):
            raise ValueError("debounceMs must be an integer between 0 and 10000")
        if not isinstance(self.python, str) or not isinstance(self.llvm_build_dir, str):
            raise ValueError("python and llvmBuildDir are paths (strings)")
        if not (_is_number(self.omp_threads, whole=True) and 0 <= self.omp_threads <= 4096):
            raise ValueError("ompThreads must be an integer between 0 and 4096")
        if not (_is_number(self.timeout) and 0 < self.timeout <= 7 * 86400):
            raise ValueError("timeout must be a positive number of seconds")
        if not isinstance(self.emulate, str) or not set(filter(None, self.emulate.split(","))) <= {"aie", "csim"}:
            raise ValueError("emulate must be empty, aie, csim or aie,csim")
        if not isinstance(self.trusted, bool):
            raise ValueError("trusted must be true or false")
        if not isinstance(self.vitis_part, str) or not isinstance(self.vitis_launcher_prefix, str):
            raise ValueError("vitis.part and vitis.launcherPrefix are strings")
        if not all(_is_number(n) and n >= 0 for n in (self.vitis_clock_ns, self.vitis_timeout)):
            raise ValueError("vitis.clockNs and vitis.timeout must be non-negative numbers")
        if why := part_error(self.vitis_part) or clock_error(self.vitis_clock_ns):
            raise ValueError(why)  # they go into run.tcl
        texts = (self.slurm_partition, self.slurm_time, self.slurm_mem, self.slurm_extra_args, self.slurm_login_host)
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("slurm.partition, .time, .mem, .extraArgs and .loginHost are strings")
        if self.slurm_time and not _SLURM_TIME.fullmatch(self.slurm_time):
            raise ValueError("slurm.time is sbatch's --time: minutes, HH:MM:SS or D-HH:MM:SS")
        if self.slurm_login_host and not _LOGIN_HOST.fullmatch(self.slurm_login_host):
            raise ValueError(
                "slurm.loginHost must be a host name or user@host (letters, digits, . _ - :), not an option"
            )
        if not (_is_number(self.slurm_cpus, whole=True) and 0 <= self.slurm_cpus <= 4096):
            raise ValueError("slurm.cpus must be an integer between 0 and 4096")
        if not (_is_number(self.sweep_max_points, whole=True) and 1 <= self.sweep_max_points <= 100_000):
            raise ValueError("sweep.maxPoints must be an integer between 1 and 100000")

    def job_config(self) -> JobConfig:
        from allo_lsp.jobs.environment import JobConfig  # the jobs' modules with the first job

        return JobConfig(
            python=self.python,
            llvm_build_dir=self.llvm_build_dir,
            omp_threads=self.omp_threads,
            timeout_s=self.timeout,
            extra_env={"ALLO_LSP_EMULATE": self.emulate} if self.emulate else {},
        )

    def synth_config(self) -> SynthConfig:
        from allo_lsp.jobs.synthesis import SynthConfig

        return SynthConfig(
            command=self.vitis_command,
            part=self.vitis_part,
            clock_ns=self.vitis_clock_ns,
            launcher_prefix=self.vitis_launcher_prefix,
            timeout_s=self.vitis_timeout,
        )

    def slurm_config(self) -> SlurmConfig | None:
        """Where synthesis runs: None for here (`scheduler` local)."""
        if self.scheduler != "slurm":
            return None
        from allo_lsp.jobs.slurm import SlurmConfig

        return SlurmConfig(
            partition=self.slurm_partition,
            time=self.slurm_time,
            cpus=self.slurm_cpus,
            mem=self.slurm_mem,
            extra_args=self.slurm_extra_args,
            login_host=self.slurm_login_host,
        )

    def runner_environment(self) -> tuple:
        """What a pre-started runner was started with: a change lets it go."""
        return self.python, self.llvm_build_dir, self.emulate


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


class Unreadable(ValueError):
    """A settings answer that cannot be read at all (not an object): nothing in it is used."""


class TooDeep:
    """The value of a key whose object is nested deeper than `MAX_DEPTH`."""


def _flatten(raw: dict):
    """`{"vitis": {"clockNs": 5}}` (how VS Code nests `alloDataflow.vitis.clockNs`) as
    `("vitis.clockNs", 5)`, in order; an object deeper than `MAX_DEPTH` as `(its key, TooDeep)`.
    Iterative: a deep answer costs its size, never Python's stack."""
    stack = [(iter(raw.items()), "", 1)]
    while stack:
        items, prefix, depth = stack[-1]
        entry = next(items, None)
        if entry is None:
            stack.pop()
            continue
        key, value = entry
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if not isinstance(value, dict):
            yield dotted, value
        elif depth < MAX_DEPTH:
            stack.append((iter(value.items()), dotted, depth + 1))
        else:
            yield dotted, TooDeep


def _key(dotted: str) -> str:
    """A key as a message shows it: a deep one's first and last levels."""
    parts = dotted.split(".")
    return dotted if len(parts) <= 6 and len(dotted) <= 200 else ".".join([*parts[:3], "...", parts[-1]])[:200]


def expand_path(value: str, folder: str | None) -> str:
    """A path setting as the user means it: `~` alone or before `/` (not `~user`), `${userHome}`,
    and `${workspaceFolder}`, the first workspace folder's path `folder`. With no folder open it
    is left as written, so that the "does not exist" a job then reports shows the setting as the
    user wrote it, not a path made up of it. Surrounding spaces are a typo, not part of a path.
    The client's `expandPath` (client/src/common/settings.ts) expands the same forms the same
    way, for what it shows before the server answers: change both or neither."""
    home = os.path.expanduser("~")  # $HOME, as the client's os.homedir()
    value = value.strip()
    if value == "~" or value.startswith("~/"):
        value = home + value[1:]
    value = value.replace("${userHome}", home)
    return value if folder is None else value.replace("${workspaceFolder}", folder)


def parse_settings(raw: Any, folder: str | None = None) -> tuple[Settings, list[str]]:
    """Settings from the client's JSON (camelCase keys), each value not given at its default, and
    the warnings (one per rejected value, at most `_MAX_WARNINGS` and a count); `python` and
    `llvmBuildDir` expanded (`expand_path`, `folder`: the first workspace folder's path, if any).
    `Unreadable` when `raw` is not an object (None: no settings, all defaults)."""
    if raw is None:
        return Settings(), []
    if not isinstance(raw, dict):
        raise Unreadable(f"{SECTION} settings must be an object, got {type(raw).__name__}")
    known = {f.name for f in fields(Settings)}
    settings, warnings = Settings(), []
    for key, value in _flatten(raw):
        if value is TooDeep:
            warnings.append(f"{SECTION}.{_key(key)}: nested deeper than {MAX_DEPTH} levels, not read")
            continue
        name = _snake(key.replace(".", "_"))
        if name not in known or (name == "trusted" and key != "trusted"):
            # Settings of other components (the client's own) share the section; trust is the
            # client's word under its own key (`Trusted` is a settings file's, spelt to pass for it).
            continue
        try:
            settings = replace(settings, **{name: value})
        except (ValueError, TypeError) as exc:
            warnings.append(f"{SECTION}.{_key(key)}: {exc}; using {getattr(settings, name)!r}")
    if len(warnings) > _MAX_WARNINGS:
        warnings[_MAX_WARNINGS:] = [f"and {len(warnings) - _MAX_WARNINGS} more problems in the {SECTION} settings"]
    paths = {
        "python": expand_path(settings.python, folder),
        "llvm_build_dir": expand_path(settings.llvm_build_dir, folder),
    }
    return replace(settings, **paths), warnings
