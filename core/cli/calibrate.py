"""`python -m core calibrate [--write]`: the documented rule for the gate's knobs on the calibration sets."""

from __future__ import annotations

import argparse

from core.evaluation.calibration import run_calibration, save
from core.knobs import LABELS, calibrated, calibration
from core.stores.runs import valid_run_name


def register(subparsers) -> None:
    parser = subparsers.add_parser("calibrate", help="在校准题集上按建议规则校准闸门参数",
                                   description="在校准题集（开发题集和已盲测过一次的题集）上按建议规则校准闸门的三个参数；加 --write 才写入校准文件。")
    parser.add_argument("--write", action="store_true", help="把结果写入 core/data/calibration.json")
    parser.add_argument("--save-run", metavar="运行名", dest="save_run",
                        help="把校准参数下每道校准题的结果保存为一次运行（python -m core runs compare 可逐题比较）")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.save_run is not None:
        args.save_run = valid_run_name(args.save_run)  # refused before calibrating, not after it
    shipped = calibrated()
    result = run_calibration()
    d, off = result.decision, result.threshold_only
    print(f"校准题集：{'、'.join(result.sets)}，合计 {result.questions} 题（k={d.knobs.k}，初始同义词表）")
    print("参数                校准结果   最优区域        校准文件里的值")
    for name in ("threshold", "min_coverage", "max_unknown_weight"):
        lo, hi = d.plateaus[name]
        print(f"  {LABELS[name]:<10}  {getattr(d.knobs, name):.2f}      {lo:.2f}–{hi:.2f}      "
              f"{getattr(shipped, name):.2f}")
    lo, hi = off.plateaus["threshold"]
    print(f"  关闭可答性判断时的阈值  {off.knobs.threshold:.2f}      {lo:.2f}–{hi:.2f}")
    m = d.metrics
    print(f"判断正确 {m.correct}/{m.total}，代价 {m.cost:g}（关闭判断时 {off.metrics.correct}/{off.metrics.total}）")
    now = result.current
    print(f"校准文件里的值在同样的题上：判断正确 {now.correct}/{now.total}，代价 {now.cost:g}")
    r = result.reuse
    if r is not None:
        print(f"已审答案复用相似度下限：{r.threshold:.2f}（最优区域 {r.plateau[0]:.2f}–{r.plateau[1]:.2f}，"
              f"校准文件里的值 {calibration().reuse_threshold:.2f}）；开发用复用题集和测过的复用盲测集 {r.rows} 行到了这一关："
              f"该复用的 {r.should} 行中复用 {r.reused_right}，不该复用的 {r.should_not} 行中复用 {r.reused_wrong}，"
              f"代价 {r.cost}")
    if args.save_run is not None:
        from core.cli.runs import actor, store
        from core.evaluation.runs import run_from_evaluation

        assert result.evaluation is not None  # run_calibration keeps every question at the chosen knobs
        run = run_from_evaluation(args.save_run, result.assistant, result.evaluation, set_name="校准题集",
                                  set_version=None, actor=actor(), origin="calibrate")
        store().save(run)
        print(f"已保存为运行「{args.save_run}」。")
    if args.write:
        save(result)
        print("已写入 core/data/calibration.json。")
    return 0
