"""What the live tests need from the environment, as test/clients/python.test.ts passes it.

GEO_BASE_URL: the API under test (…/api/v1). GEO_TEST_KEYS and GEO_TEST_ANALYSES: the demo's keys and
analysis slugs by label (JSON, the manifest `npm start` writes to .local/demo.json). GEO_TEST_DISABLED_URL,
GEO_TEST_BUDGET_DOWN_URL and GEO_TEST_STORE_DOWN_URL: the base addresses of three APIs whose switch is off,
whose budget counter is unreachable, and whose store is unreachable. Without GEO_BASE_URL the live tests
are skipped, saying so. Against `npm start`, the manifest it writes to .local/demo.json is read when
GEO_TEST_KEYS is not set (the fault tests are then skipped: they need APIs of their own).
"""

from __future__ import annotations

import json
import os
import unittest
from pathlib import Path
from typing import Any, Dict


def _demo() -> Dict[str, Any]:
    """The manifest `npm start` writes (.local/demo.json at the repository root), when there is one."""
    path = Path(__file__).resolve().parents[3] / ".local" / "demo.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


_DEMO = {} if os.environ.get("GEO_TEST_KEYS") else _demo()
BASE_URL = os.environ.get("GEO_BASE_URL") or _DEMO.get("base_url", "")
KEYS: Dict[str, str] = json.loads(os.environ.get("GEO_TEST_KEYS") or "null") or _DEMO.get("keys", {})
ANALYSES: Dict[str, str] = json.loads(os.environ.get("GEO_TEST_ANALYSES") or "null") or _DEMO.get("analyses", {})

live = unittest.skipUnless(
    BASE_URL and KEYS and ANALYSES,
    "live tests need GEO_BASE_URL, GEO_TEST_KEYS and GEO_TEST_ANALYSES (run them through test/clients/python.test.ts)",
)


def fault_url(name: str) -> str:
    url = os.environ.get(name, "")
    if not url:
        raise unittest.SkipTest(f"{name} is not set")
    return url
