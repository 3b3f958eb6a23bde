"""Issue 28, point 10: the dependency audit (scripts/audit.py, run by .ci/run) fails the build on
a known vulnerability, and where the registry has no vulnerability data (every package skipped,
as in an offline sandbox) says so, and why, without failing."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def audit() -> Any:
    spec = importlib.util.spec_from_file_location("audit", ROOT / "scripts" / "audit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_known_vulnerability_fails_the_build() -> None:
    report = {
        "dependencies": [
            {"name": "tornado", "version": "6.0", "vulns": [{"id": "GHSA-1"}, {"id": "CVE-2"}]},
            {"name": "orjson", "version": "3.10", "vulns": []},
        ]
    }
    lines, code = audit().verdict(report)
    assert code == 1
    assert lines == [
        "pip-audit: tornado 6.0: GHSA-1, CVE-2",
        "pip-audit: 2 audited, 1 vulnerable, 0 skipped (the registry did not answer for them)",
    ]


def test_a_registry_without_vulnerability_data_warns_and_says_why() -> None:
    reason = "Dependency not found on PyPI and could not be audited: aiolimiter (1.2.1)"
    report = {"dependencies": [{"name": "aiolimiter", "skip_reason": reason}]}
    lines, code = audit().verdict(report)
    assert code == 0
    assert lines[1].startswith("pip-audit: WARNING: nothing was audited")
    assert lines[2] == f"pip-audit: for instance: {reason}"


def test_ci_runs_the_audit_after_the_tests() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert run.index(".venv/bin/python scripts/audit.py") > run.index("./test.sh --all")
