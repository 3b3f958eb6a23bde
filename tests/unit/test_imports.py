"""The layers' imports: no cycles between modules, and each layer imports only what is below it;
inside `bot/`, each folder imports only the folders it may, and the folders form no cycle.

Read from the source with `ast`, every import counts: at the top, inside a function (a lazy
import) or under `if TYPE_CHECKING:`. Migrations are scripts Alembic runs, not modules.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping, Set
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "service", "storage", "bot")
#: What a layer may not import (beyond the rule for scoring: the stdlib and scoring only).
FORBIDDEN = {"service": ("telegram", "bot"), "storage": ("telegram", "bot", "service")}
#: Inside bot/: what each folder (or top-level module) may import of bot/ besides itself, by
#: folder, top-level module or module. `app` (the wiring) and `cli` may import anything.
BOT_ALLOWED: dict[str, frozenset[str]] = {
    "commands": frozenset({"i18n"}),
    "presentation": frozenset({"commands", "i18n"}),
    "delivery": frozenset({"i18n", "presentation", "ptb_types"}),
    "chat": frozenset(  # the app's link; /me asks who is a member as the app does
        {"commands", "presentation", "delivery", "miniapp.link", "miniapp.members"}
        | {"i18n", "ptb_types"}
    ),
    # the app's records are posted in the chat as every reply is sent (delivery.messages)
    "miniapp": frozenset(
        {"commands", "presentation", "delivery.messages", "i18n", "ptb_types", "settings"}
    ),
    # the console's --app serves the Mini App of its chat
    "console": frozenset({"app", "delivery", "settings", "miniapp", "i18n", "ptb_types"}),
    "settings": frozenset(),
    "dbfile": frozenset(),
    "i18n": frozenset(),
    "ptb_types": frozenset(),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def sources() -> dict[str, Path]:
    """Every module of the product packages → its file."""
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.relative_to(ROOT).parts
    }


def imported(module: str, path: Path) -> Iterator[str]:
    """The modules that `module` imports, anywhere in its file (`from a import b` is `a.b`
    when b is a module of ours, else `a`)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in sources() else base


@cache
def graph() -> dict[str, frozenset[str]]:
    """module → every module it imports (ours and others, by their full dotted name)."""
    return {name: frozenset(imported(name, path)) for name, path in sources().items()}


def reachable(start: str, edges: Mapping[str, Set[str]]) -> set[str]:
    """The modules of `edges` that `start` imports, directly or not."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt in edges and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def cycles(edges: Mapping[str, Set[str]]) -> list[list[str]]:
    """Each group of modules that import each other (or one importing itself), as the shortest
    cycle through them."""
    reach = {node: reachable(node, edges) for node in edges}
    groups = {
        frozenset(other for other in reach[node] if node in reach[other])
        for node in edges
        if node in reach[node]
    }
    return sorted(
        min((cycle_through(start, group, edges) for start in sorted(group)), key=len)
        for group in groups
    )


def cycle_through(start: str, group: Set[str], edges: Mapping[str, Set[str]]) -> list[str]:
    """A shortest path from `start` back to itself within `group` (breadth first)."""
    paths = {nxt: [start, nxt] for nxt in sorted(edges[start]) if nxt in group}
    seen = set(paths)
    while start not in paths:
        paths = {
            nxt: [*path, nxt]
            for node, path in paths.items()
            for nxt in sorted(edges[node])
            if nxt in group and nxt not in seen
        }
        seen |= set(paths)
    return paths[start]


def top(name: str) -> str:
    return name.partition(".")[0]


def test_the_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "import sqlmodel\n"
        "from bot.commands import labels\n"
        "from ..presentation.numbers import fmt\n"
        "if TYPE_CHECKING:\n"
        "    from service.replies import Reply\n"
        "def draw():\n"
        "    from bot.presentation.chart import render_chart\n",
        encoding="utf-8",
    )
    assert set(imported("bot.chat.m", path)) == {
        "typing", "sqlmodel", "bot.commands.labels", "bot.presentation.numbers", "service.replies",
        "bot.presentation.chart",
    }  # fmt: skip
    edges = graph()
    assert set(PACKAGES) <= set(edges)
    assert "bot.commands.labels" in edges["bot.presentation.render"]


def test_the_cycle_finder() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"d"}, "e": {"a"}, "f": set()}
    assert sorted(cycles(edges)) == [["a", "b", "c", "a"], ["d", "d"]]


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert not found, "import cycles:\n" + "\n".join(" → ".join(c) for c in found)


def test_scoring_imports_only_the_stdlib_and_itself() -> None:
    allowed = set(sys.stdlib_module_names) | {"scoring", "__future__"}
    wrong = {
        f"{module} imports {name}"
        for module, names in graph().items()
        if top(module) == "scoring"
        for name in names
        if top(name) not in allowed
    }
    assert not wrong, sorted(wrong)


def test_each_layer_imports_only_what_is_below_it() -> None:
    wrong = {
        f"{module} imports {name}"
        for module, names in graph().items()
        for name in names
        if top(name) in FORBIDDEN.get(top(module), ())
    }
    assert not wrong, sorted(wrong)


def area(module: str) -> str:
    """The folder (or top-level module) of bot/ a module of bot/ is in: bot.chat.routes → chat."""
    return module.split(".")[1] if module.count(".") else module


def allows(allowed: Set[str], module: str) -> bool:
    """Whether `module` (of bot/) is in one of `allowed`: a folder, a top-level module or a
    module (`miniapp.link`)."""
    inner = module.removeprefix("bot.")
    return any(inner == a or inner.startswith(f"{a}.") for a in allowed)


def bot_edges() -> dict[str, set[str]]:
    """module of bot/ → the modules of bot/ it imports (the package itself left out)."""
    return {
        module: {n for n in names if n.startswith("bot.")}
        for module, names in graph().items()
        if module.startswith("bot.")
    }


def test_bot_has_the_folders_it_shows() -> None:
    areas = {area(module) for module in bot_edges()}
    assert areas == set(BOT_ALLOWED) | {"app", "cli"}, sorted(areas)


def test_each_folder_of_bot_imports_only_what_it_may() -> None:
    wrong = {
        f"{module} imports {name}"
        for module, names in bot_edges().items()
        for name in names
        if area(name) != area(module)
        and area(module) in BOT_ALLOWED
        and not allows(BOT_ALLOWED[area(module)], name)
    }
    assert not wrong, sorted(wrong)


def test_no_cycles_between_the_folders_of_bot() -> None:
    folders: dict[str, set[str]] = {}
    for module, names in bot_edges().items():
        folders.setdefault(area(module), set()).update(
            area(n) for n in names if area(n) != area(module)
        )
    found = cycles(folders)
    assert not found, "cycles between bot/'s folders:\n" + "\n".join(" → ".join(c) for c in found)


def test_the_folder_rules_catch_a_wrong_import() -> None:
    assert allows(BOT_ALLOWED["chat"], "bot.miniapp.link")
    assert not allows(BOT_ALLOWED["chat"], "bot.miniapp.api")
    assert not allows(BOT_ALLOWED["presentation"], "bot.chat.handlers")
    assert not allows(BOT_ALLOWED["commands"], "bot.presentation.render")
