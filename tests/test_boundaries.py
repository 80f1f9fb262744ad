"""Architecture rules: core never imports streamlit; results don't depend on PYTHONHASHSEED."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.paths import ROOT


def test_core_does_not_import_streamlit():
    code = ("import sys, pkgutil, importlib, core\n"
            "for m in pkgutil.walk_packages(core.__path__, 'core.'):\n"
            "    if m.name != 'core.__main__': importlib.import_module(m.name)\n"
            "print('streamlit' in sys.modules, len(sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    imported_streamlit, _ = proc.stdout.split()
    assert imported_streamlit == "False"


def _answer_in_subprocess(seed: str) -> dict:
    code = ("import json\nfrom core.corpus.loader import load_documents\nfrom core.retrieval.index import build_index\n"
            "from core import answer\n"
            "r = answer('退费怎么计算？', build_index(load_documents('corpus')), k=5)\n"
            "print(json.dumps(r.to_dict(), ensure_ascii=False))")
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": seed}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_answer_is_identical_across_hash_seeds():
    assert _answer_in_subprocess("1") == _answer_in_subprocess("12345")
