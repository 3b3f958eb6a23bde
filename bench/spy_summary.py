"""A py-spy profile in a few tables: ``python -m bench.spy_summary FILE [--top N] [--under F]``.

FILE holds collapsed stacks (``py-spy record --format raw``; ``python -m bench.webhook --py-spy
FILE`` writes one of jifen's measured window): ``frame;frame;…;leaf count`` per line, each
frame ``function (file:line)``. Printed, as shares of all samples:
- by thread: the event loop's (stacks from ``runpy``) and the others (the thread pool's);
- self time by package (the leaf frame's first path part: ``telegram``, ``sqlalchemy``…);
- the top functions by self time, and by inclusive time (counted once per stack).
``--under F`` keeps only the stacks through a function whose name contains F.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^():]*)(?::(?P<line>\d+))?\)$")


@dataclass(frozen=True)
class Stack:
    frames: tuple[str, ...]  # "function (file:line)", outermost first
    count: int


def read(path: Path) -> list[Stack]:
    stacks = []
    for line in path.read_text().splitlines():
        text, _, count = line.rpartition(" ")
        if text and count.isdigit():
            stacks.append(Stack(tuple(text.split(";")), int(count)))
    return stacks


def function(frame: str) -> str:
    """``function (file)``: the frame without its line number."""
    match = FRAME.match(frame)
    return frame if match is None else f"{match['func']} ({match['file']})"


def package(frame: str) -> str:
    match = FRAME.match(frame)
    if match is None:
        return "?"
    file = match["file"]
    if file.startswith("<"):
        return file
    first = file.split("/", 1)[0]
    return first.removesuffix(".py")


def is_loop_thread(stack: Stack) -> bool:
    return bool(stack.frames) and "runpy" in stack.frames[0]


def table(title: str, counts: Iterable[tuple[str, int]], total: int, top: int) -> list[str]:
    lines = [f"{title}:"]
    for name, count in list(counts)[:top]:
        lines.append(f"  {100 * count / total:5.1f}%  {count:6d}  {name}")
    return lines


def summary(stacks: Sequence[Stack], top: int = 25) -> str:
    total = sum(s.count for s in stacks) or 1
    loop = sum(s.count for s in stacks if is_loop_thread(s))
    own: Counter[str] = Counter()
    by_package: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for stack in stacks:
        leaf = stack.frames[-1]
        own[function(leaf)] += stack.count
        by_package[package(leaf)] += stack.count
        for name in {function(f) for f in stack.frames}:
            inclusive[name] += stack.count
    lines = [
        f"{total} samples; event loop thread {100 * loop / total:.1f}%, "
        f"other threads {100 * (total - loop) / total:.1f}%",
        *table("self time by package", by_package.most_common(), total, top),
        *table("self time by function", own.most_common(), total, top),
        *table("inclusive time by function", inclusive.most_common(), total, top * 2),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.spy_summary", description=__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--under", help="only stacks through a function whose name has this")
    args = parser.parse_args(argv)
    stacks = read(args.file)
    if args.under:
        stacks = [s for s in stacks if any(args.under in function(f) for f in s.frames)]
    print(summary(stacks, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
