"""One gate through WeChat, on every labelled set: each question sent as a student's WeChat message through the
channel (the scripted WeCom server on 127.0.0.1, the channel's pull, StudentDesk.message, send_msg), under the `auto`
and the `all` policy, against `xiaoe ask --json` on the same data (tests/service/wecom_gate.py says how they are
compared). Prints one row per set and policy: questions, refused / held / answered as WeChat did it, how many agree
with `xiaoe ask --json`, and the first disagreements.

    python -m bench.wecom_one_gate [--every N]

Offline answerer, a fresh SQLite database and index in a temporary folder; nothing is written anywhere else.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sets import CALIBRATION_SETS, DEV_STUDENT_SETS, HELDOUT_SETS, read_set  # noqa: E402
from core.retrieval.store import load_or_build  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.stores.api_keys import KeyStore  # noqa: E402
from tests.paths import CORPUS  # noqa: E402
from tests.service.harness import ADMIN  # noqa: E402
from tests.service.wecom_gate import compare  # noqa: E402
from tests.service.wecom_rig import make_rig  # noqa: E402
from tests.service.wecom_server import start_wecom  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="每几题取一题（默认 1：全部）")
    args = parser.parse_args(argv)
    sets = (*CALIBRATION_SETS, *HELDOUT_SETS, *DEV_STUDENT_SETS)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        url = f"sqlite:///{data / 'xiaoe.sqlite3'}"
        for name in [n for n in os.environ if n.startswith("XIAOE_") and n != "XIAOE_TEST_DATABASE_URL"]:
            del os.environ[name]
        os.environ.update({"XIAOE_DATA_DIR": str(data), "XIAOE_DATABASE_URL": url, "XIAOE_CORPUS_DIR": str(CORPUS)})
        load_or_build(Settings(data_dir=data, corpus_dir=CORPUS))
        fake = start_wecom()
        rig = make_rig(fake, url, data, release="auto")
        rig.turn()
        print("| 题集 | 放行策略 | 题数 | 拒答 | 待发送 | 直接回答 | 与 xiaoe ask --json 一致 |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        total = Counter()
        misses: list[str] = []
        started = time.monotonic()
        for policy in ("auto", "all"):
            KeyStore(rig.db).set_release(ADMIN, rig.settings.wecom_key, policy)
            for label, file in sets:
                questions = [q.question for q in read_set(file)][::args.every]
                found = compare(rig, questions, f"{policy[:2]}{file[:-4]}-", policy)
                kinds = Counter(c.wechat for c in found)
                agree = sum(c.agrees for c in found)
                total.update({"questions": len(found), "agree": agree})
                misses += [f"{file} {policy}: {c.question}（微信 {c.wechat}，命令行 {c.cli}）" for c in found
                           if not c.agrees]
                print(f"| {label} | {policy} | {len(found)} | {kinds['refused']} | {kinds['held']} | "
                      f"{kinds['answered']} | {agree}/{len(found)} |", flush=True)
        print(f"\n合计 {total['agree']}/{total['questions']} 一致，用时 {time.monotonic() - started:.0f} 秒。")
        for line in misses[:20]:
            print("不一致：" + line)
        rig.close()
        fake.close()
    return 0 if total["agree"] == total["questions"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
