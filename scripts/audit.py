"""Fails on known vulnerabilities in the installed dependencies (pip-audit), where the package
registry answers; packages it cannot look up are listed as skipped, not failed."""

from __future__ import annotations

import json
import subprocess
import sys


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
    deps = report.get("dependencies", [])
    skipped = [d["name"] for d in deps if "skip_reason" in d]
    vulnerable = [d for d in deps if d.get("vulns")]
    for dep in vulnerable:
        ids = ", ".join(v["id"] for v in dep["vulns"])
        print(f"pip-audit: {dep['name']} {dep.get('version')}: {ids}")
    print(
        f"pip-audit: {len(deps) - len(skipped)} audited, {len(vulnerable)} vulnerable, "
        f"{len(skipped)} skipped (the registry did not answer for them)"
    )
    if deps and len(skipped) == len(deps):
        print("pip-audit: WARNING: nothing was audited (no vulnerability data from the registry)")
    return 1 if vulnerable else 0


if __name__ == "__main__":
    sys.exit(main())
