"""Fails on known vulnerabilities in the installed dependencies (pip-audit), where the package
registry answers; packages it cannot look up are listed as skipped, not failed (a registry
without vulnerability data, as in an offline sandbox, skips every one: a warning, not a
failure)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def verdict(report: dict[str, Any]) -> tuple[list[str], int]:
    """The lines to print for pip-audit's JSON report, and the exit code (1: vulnerable)."""
    deps = report.get("dependencies", [])
    skipped = [d for d in deps if "skip_reason" in d]
    vulnerable = [d for d in deps if d.get("vulns")]
    lines = [
        f"pip-audit: {d['name']} {d.get('version')}: {', '.join(v['id'] for v in d['vulns'])}"
        for d in vulnerable
    ]
    lines.append(
        f"pip-audit: {len(deps) - len(skipped)} audited, {len(vulnerable)} vulnerable, "
        f"{len(skipped)} skipped (the registry did not answer for them)"
    )
    if deps and len(skipped) == len(deps):
        lines.append(
            "pip-audit: WARNING: nothing was audited (no vulnerability data from the registry)"
        )
        lines.append(f"pip-audit: for instance: {skipped[0]['skip_reason']}")
    return lines, 1 if vulnerable else 0


def main() -> int:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip_audit",
            "--skip-editable",
            "--local",
            "--format",
            "json",
            "--progress-spinner",
            "off",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"pip-audit: no report (the vulnerability service did not answer)\n{done.stderr}")
        return 0
    lines, code = verdict(report)
    print("\n".join(lines))
    return code


if __name__ == "__main__":
    sys.exit(main())
