"""``python -m bench.compare OLD [NEW] [--runs N] [--quick] [--save FILE]``: two revisions side by
side.

Each revision is checked out in a temporary git worktree and measured by ``python -m bench`` in
turns (old, new, old, new, …) on the same machine and in the same minutes, so a noisy machine
moves both alike. NEW defaults to the working tree as it is. Prints one JSON object: per figure
the median of each side, their ratio (new ÷ old) and every run's value.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.timing import median, rounded

REPO = Path(__file__).resolve().parent.parent
FIGURES = (
    "lone_vs_naive_orm",
    "pg_lone_vs_naive_orm",
    "lone_overhead_vs_echo",
    "pg_lone_overhead_vs_echo",
    "core_per_hand",
    "pg_core_per_hand",
    "webhook_cpu_vs_echo",
    "pg_webhook_cpu_vs_echo",
    "reply_p99_ms_100rps",
    "pg_reply_p99_ms_100rps",
    "rss_mb",
    "start_s",
    # CPU time is steadier than wall time on a loaded machine:
    "detail.sqlite_lone.bot_cpu_ms_per_update",
    "detail.sqlite_lone.naive_cpu_ms_per_update",
    "detail.sqlite_lone.echo_cpu_ms_per_update",
    "detail.postgres_lone.bot_cpu_ms_per_update",
    "detail.postgres_lone.naive_cpu_ms_per_update",
    "detail.postgres_lone.echo_cpu_ms_per_update",
    "detail.webhook_30.jifen.cpu_ms_per_update",
    "detail.webhook_30.jifen_pg.cpu_ms_per_update",
    "detail.webhook_30.echo.cpu_ms_per_update",
)


def checkout(stack: ExitStack, revision: str, root: Path) -> Path:
    """A detached worktree of `revision`, removed when `stack` closes."""
    path = root / revision.replace("/", "_")
    subprocess.run(
        ["git", "worktree", "add", "--detach", "-q", str(path), revision], cwd=REPO, check=True
    )
    stack.callback(
        subprocess.run, ["git", "worktree", "remove", "--force", str(path)], cwd=REPO, check=False
    )
    return path


def measure(tree: Path, options: list[str]) -> dict[str, Any]:
    """One ``python -m bench`` of the code in `tree` (imported from there, not from the venv)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    args = [sys.executable, "-m", "bench", *options]
    out = subprocess.run(args, cwd=tree, env=env, check=True, capture_output=True, text=True)
    figures: dict[str, Any] = json.loads(out.stdout)
    return figures


def figure(run: dict[str, Any], key: str) -> Any:
    """A figure of one run, by its dotted path (`detail.sqlite_path.bot_cpu_ms_per_update`)."""
    value: Any = run
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def other_figures(runs: dict[str, list[dict[str, Any]]]) -> set[str]:
    """Every other number a run printed at its top level (a side may lack a newer key)."""
    return {
        key
        for side in runs.values()
        for run in side
        for key, value in run.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__)
    parser.add_argument("old", help="the revision to compare against, e.g. a commit")
    parser.add_argument("new", nargs="?", help="another revision (default: the working tree)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--quick", action="store_true", help="python -m bench --quick")
    parser.add_argument("--save", type=Path, help="write every run's whole JSON to this file")
    parser.add_argument("--paths", action="store_true", help="python -m bench --paths")
    parser.add_argument(
        "--harness",
        action="store_true",
        help="measure OLD with this bench/ (copied over its own): its newer figures too",
    )
    args = parser.parse_args(argv)
    options = [*(["--quick"] if args.quick else []), *(["--paths"] if args.paths else [])]
    with ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="jifen-compare-")))
        sides = {"old": checkout(stack, args.old, root)}
        if args.harness:
            shutil.rmtree(sides["old"] / "bench")
            shutil.copytree(REPO / "bench", sides["old"] / "bench")
        sides["new"] = checkout(stack, args.new, root) if args.new else REPO
        runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
        for n in range(args.runs):
            for side, tree in sides.items():
                print(f"[compare] run {n + 1}/{args.runs}: {side}", file=sys.stderr, flush=True)
                runs[side].append(measure(tree, options))
    if args.save:
        args.save.write_text(json.dumps(runs, ensure_ascii=False, indent=1))
    result: dict[str, Any] = {"old": args.old, "new": args.new or "working tree"}
    for key in (*FIGURES, *sorted(other_figures(runs) - set(FIGURES))):
        values = {
            side: [v for v in (figure(r, key) for r in runs[side]) if v is not None]
            for side in runs
        }
        medians = {side: median(v) if v else None for side, v in values.items()}
        old, new = medians["old"], medians["new"]
        if old is None and new is None:
            continue
        result[key] = {
            "old": old,
            "new": new,
            "ratio": rounded(new / old, 3) if old and new is not None else None,
            "runs": values,
        }
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
