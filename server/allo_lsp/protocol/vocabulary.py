"""The words the command line, the server and the client share, each listed once: job kinds and
the commands that start them, backends, target platforms, Allo builds, emulations, Vitis commands, schedulers, log levels.

`cli.py`'s choices and `settings.py`'s checks read this table; package.json (the client's
commands and the settings' enums), the CLI's parser and the server's registered commands are
tested against it (tests/lsp/test_tables.py). The words are the glossary's (ARCHITECTURE.md).
"""

from __future__ import annotations

from allo_lsp.protocol.messages import MLIR, RUN, SIMULATE, SYNTHESIZE

# The settings' section (`alloDataflow.backend`, ...) and the prefix of every command id.
SECTION = "alloDataflow"

# Job kinds the user starts (a lens, a command, `allo-lsp run`/`synth`); `messages.PROBE` is the
# server's own and has no command.
JOB_KINDS = (SIMULATE, RUN, MLIR, SYNTHESIZE)
# Job kind -> the command that starts it (code lenses, the palette; the server handles them).
JOB_COMMANDS = {
    SIMULATE: f"{SECTION}.simulate",
    RUN: f"{SECTION}.run",
    MLIR: f"{SECTION}.showMlir",
    SYNTHESIZE: f"{SECTION}.synthesize",
}
SHOW_REPORT = f"{SECTION}.showReport"  # the last synthesis' report (no job)
SYNTHESIS_FILES = f"{SECTION}.showSynthesisFiles"  # what the last synthesis kept: project, log, C++
CANCEL_JOB = f"{SECTION}.cancelJob"
SWEEP = f"{SECTION}.sweep"  # a region's sweep: [uri, region] its parameters, [uri, region, sets] the table
SERVER_COMMANDS = (*JOB_COMMANDS.values(), SHOW_REPORT, SYNTHESIS_FILES, CANCEL_JOB, SWEEP)
# initializationOptions: the editor's storage directory for the workspace (VS Code's storageUri),
# where the cluster's jobs are kept; without it `$XDG_STATE_HOME/allo-lsp/workspaces/<digest>`.
WORKSPACE_STORAGE = "workspaceStorage"
# [uri, region, kernel]: the client's quick pick of a kernel's PEs (the PE lens's command), which
# then asks alloDataflow/activePe.
PICK_PE = f"{SECTION}.pickPe"
# Commands the client answers itself, never sent to the server.
CLIENT_COMMANDS = (
    f"{SECTION}.selectInterpreter",
    f"{SECTION}.restartServer",
    f"{SECTION}.showOutput",
    f"{SECTION}.showGraph",  # the graph panel: the client asks allo/regionGraph
    PICK_PE,
)

# Who runs a simulate or run job: `allo` (Allo's simulator), `reference` (the numpy executor);
# `auto`: Allo's when a usable LLVM build is there, else the executor.
BACKENDS = ("auto", "allo", "reference")
# Target platforms (the `target=` of `df.build`) the jobs build for.
SIMULATOR = "simulator"  # simulate and run jobs
VITIS_HLS = "vitis_hls"  # synthesize jobs (`mode="csyn"`)
DEFAULT_PLATFORM = VITIS_HLS  # what `df.build` builds for without `target=`
# Which Allo the user runs: `fixed` or `legacy` argument order, `auto` unknown until probed.
ALLO_BUILDS = ("auto", "fixed", "legacy")
# Reference backend: modules built for `aie` / vitis_hls `csim` run functionally on the executor.
EMULATIONS = ("", "aie", "csim", "aie,csim")
# The Vitis HLS tool a synthesize job runs (`vitis-run` from Vitis 2024.2).
VITIS_COMMANDS = ("vitis_hls", "vitis-run")
# Who runs a synthesize job: `local` (a child of the server), `slurm` (a batch job on the cluster,
# left running when the server ends: `jobs/slurm_jobs.py`).
SCHEDULERS = ("local", "slurm")
# How much the client and the server write to the editor's log, least first (as ruff-vscode's).
LOG_LEVELS = ("error", "warn", "info", "debug")
