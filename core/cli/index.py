"""`python -m core index build|info`: build or rebuild the saved index, or show what is saved."""

from __future__ import annotations

import argparse
import json
import time

from core.retrieval.store import CACHE_ERRORS, corpus_fingerprint, index_path, load_index, load_or_build
from core.settings import Settings


def register(subparsers) -> None:
    index = subparsers.add_parser("index", help="检索索引：建立、重建或查看")
    actions = index.add_subparsers(dest="index_command", metavar="操作")

    build = actions.add_parser("build", help="建立索引（资料没变时直接用已保存的索引）")
    build.add_argument("--force", action="store_true", help="删除已保存的索引，从头重建")
    build.set_defaults(handler=run_build)

    info = actions.add_parser("info", help="查看当前资料对应的索引是否已保存、大小和片段数")
    info.add_argument("--json", action="store_true", help="输出 JSON")
    info.set_defaults(handler=run_info)

    index.set_defaults(handler=lambda _args: _help(index))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def run_build(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if args.force:
        index_path(settings, corpus_fingerprint(settings)).unlink(missing_ok=True)
    start = time.perf_counter()
    bundle = load_or_build(settings)
    seconds = time.perf_counter() - start
    cached = len(bundle.files) - len(bundle.resplit)
    how = ("载入已保存的索引" if bundle.from_cache else
           f"新建索引（{len(bundle.resplit)} 个有改动的文件重新切分，其余 {cached} 个文件内容没变，沿用缓存的切分结果）")
    print(f"{how}：{len(bundle.index)} 个片段，来自 {len(bundle.files)} 个文件，用时 {seconds:.2f} 秒。")
    print(f"指纹 {bundle.fingerprint}，索引占内存 {bundle.index.memory_bytes() / 1024:.1f} KB。")
    for line in (*bundle.skipped, *([bundle.note] if bundle.note else [])):
        print(f"注意：{line}")
    return 0


def run_info(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    fingerprint = corpus_fingerprint(settings)
    path = index_path(settings, fingerprint)
    info: dict = {"fingerprint": fingerprint, "path": str(path), "saved": path.exists(), "retriever": settings.retriever}
    if path.exists():
        start = time.perf_counter()
        try:
            index, meta = load_index(path, fingerprint)
        except CACHE_ERRORS as error:
            info.update(saved=False, problem=f"已保存的索引无法读取（{type(error).__name__}: {error}），下次建立时会自动重建。")
        else:
            info.update(load_seconds=round(time.perf_counter() - start, 4), chunks=len(index), files=meta["files"],
                        built_at=meta["built_at"], memory_bytes=index.memory_bytes(), file_bytes=path.stat().st_size)
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
    elif settings.retriever != "lexical":
        print(f"检索方式是 {settings.retriever}：索引每次启动时重建，向量另有磁盘缓存（core/retrieval/dense.py），这里不保存索引文件。")
    elif "problem" in info:
        print(info["problem"])
    elif not info["saved"]:
        print(f"当前资料（指纹 {fingerprint}）还没有保存的索引；运行 python -m core index build 建立。")
    else:
        print(f"指纹 {fingerprint}：已保存于 {path}（{info['file_bytes'] / 1024:.1f} KB，建于 {info['built_at']}）。")
        print(f"{info['chunks']} 个片段，来自 {len(info['files'])} 个文件；索引占内存 "
              f"{info['memory_bytes'] / 1024:.1f} KB，载入用时 {info['load_seconds'] * 1000:.1f} 毫秒。")
    return 0
