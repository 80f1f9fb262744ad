"""The saved index: fingerprint, save/load round trip, reuse, incremental re-split, damaged caches, CLI."""

from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import pytest

import core.retrieval.store as store
from core.cli import main as cli_main
from core.errors import CorpusError
from core.retrieval.index import build_index, search_with_score
from core.retrieval.npz import read_npz
from core.retrieval.store import (
    FORMAT_VERSION,
    LazyChunks,
    corpus_fingerprint,
    index_path,
    load_index,
    load_or_build,
    save_index,
)
from core.settings import Settings
from tests.paths import CORPUS

QUESTIONS = ["启明英语的口语课一共有几级？", "退费怎么计算？", "你们的雅思保过班多少钱？", "人工服务时间"]


@pytest.fixture
def settings(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    return Settings(corpus_dir=corpus, data_dir=tmp_path / "data")


@pytest.fixture
def split_calls(monkeypatch):
    """Counts calls of split_pieces made by the store (one per file cut into chunks)."""
    calls: list[str] = []
    real = store.split_pieces

    def counting(source, text, splitter):
        calls.append(source)
        return real(source, text, splitter)

    monkeypatch.setattr(store, "split_pieces", counting)
    return calls


def scores_of(index) -> list[list[float]]:
    return [index.retriever.scores(q).tolist() for q in QUESTIONS]


# -- round trip -------------------------------------------------------------------------------------

def test_save_then_load_gives_identical_scores_and_chunks(tmp_path, corpus_chunks):
    index = build_index(corpus_chunks, fingerprint="abc")
    save_index(index, tmp_path / "i.npz", files=["01.md"])
    loaded, meta = load_index(tmp_path / "i.npz", "abc")
    assert scores_of(loaded) == scores_of(index)
    assert list(loaded.chunks) == list(index.chunks)
    assert (loaded.fingerprint, loaded.built_at, meta["files"]) == ("abc", index.built_at, ["01.md"])
    for q in QUESTIONS:
        assert search_with_score(loaded, q, 5) == search_with_score(index, q, 5)


def test_save_then_load_of_an_empty_index(tmp_path):
    save_index(build_index([]), tmp_path / "e.npz")
    loaded, _ = load_index(tmp_path / "e.npz")
    assert len(loaded) == 0 and search_with_score(loaded, "退费", 3) == []


def test_load_rejects_another_fingerprint(tmp_path, corpus_chunks):
    save_index(build_index(corpus_chunks, fingerprint="abc"), tmp_path / "i.npz")
    with pytest.raises(ValueError, match="fingerprint abc is not xyz"):
        load_index(tmp_path / "i.npz", "xyz")


def test_save_refuses_a_dense_index(tmp_path, corpus_chunks):
    from core.retrieval.embeddings import HashingEmbeddings

    with pytest.raises(TypeError, match="DenseRetriever"):
        save_index(build_index(corpus_chunks, HashingEmbeddings()), tmp_path / "d.npz")


def test_lazy_chunks_behave_like_a_tuple(tmp_path, corpus_chunks):
    save_index(build_index(corpus_chunks), tmp_path / "i.npz")
    chunks = load_index(tmp_path / "i.npz")[0].chunks
    assert isinstance(chunks, LazyChunks)
    assert len(chunks) == len(corpus_chunks)
    assert chunks[-1] == corpus_chunks[-1] and chunks[1:3] == tuple(corpus_chunks[1:3])
    assert chunks[0] is chunks[0]  # made once
    with pytest.raises(IndexError):
        chunks[len(corpus_chunks)]


# -- load_or_build ----------------------------------------------------------------------------------

def test_load_or_build_reuses_the_saved_index(settings, split_calls):
    first = load_or_build(settings)
    second = load_or_build(settings)
    assert (first.from_cache, second.from_cache) == (False, True)
    assert scores_of(second.index) == scores_of(first.index)
    assert (second.files, second.fingerprint) == (first.files, first.fingerprint)
    assert len(split_calls) == 3  # only the first build cut the three files


def test_load_or_build_writes_one_index_file_and_no_temp_files(settings):
    load_or_build(settings)
    (settings.corpus_dir / "03-助教小E使用手册.md").write_text("# 新\n\n小E 每天 9 点上线。", encoding="utf-8")
    bundle = load_or_build(settings)
    files = sorted(p.name for p in settings.index_dir.iterdir() if p.is_file())
    assert files == [index_path(settings, bundle.fingerprint).name]
    assert not list(settings.index_dir.rglob("*.tmp"))


@pytest.mark.parametrize("change", ["edit_file", "add_file", "rename_file", "chunk_size", "chunk_overlap"])
def test_fingerprint_changes_when_corpus_or_chunking_changes(settings, change):
    before = corpus_fingerprint(settings)
    first = settings.corpus_dir / "01-口语课分级说明.md"
    if change == "edit_file":
        first.write_text(first.read_text(encoding="utf-8") + "\n补充一句。", encoding="utf-8")
    elif change == "add_file":
        (settings.corpus_dir / "04-新.md").write_text("新内容", encoding="utf-8")
    elif change == "rename_file":
        first.rename(settings.corpus_dir / "01-改名.md")
    elif change == "chunk_size":
        settings = settings.with_(chunk_size=120)
    else:
        settings = settings.with_(chunk_overlap=20)
    assert corpus_fingerprint(settings) != before


def test_fingerprint_is_stable_when_nothing_changes(settings):
    assert corpus_fingerprint(settings) == corpus_fingerprint(settings)


def test_incremental_rebuild_resplits_only_the_changed_file(settings, split_calls):
    load_or_build(settings)
    changed = settings.corpus_dir / "02-退费与转班制度.md"
    changed.write_text(changed.read_text(encoding="utf-8").replace("5%", "6%"), encoding="utf-8")
    split_calls.clear()
    bundle = load_or_build(settings)
    assert split_calls == ["02-退费与转班制度.md"]
    assert bundle.resplit == ("02-退费与转班制度.md",) and not bundle.from_cache
    assert any("6%" in c.page_content for c in bundle.index.chunks)


def test_incremental_rebuild_equals_a_fresh_build(settings, tmp_path):
    load_or_build(settings)
    changed = settings.corpus_dir / "01-口语课分级说明.md"
    changed.write_text(changed.read_text(encoding="utf-8") + "\n\n## 六、新增\n\n暑期班每周上 4 课时。", encoding="utf-8")
    incremental = load_or_build(settings).index
    fresh = load_or_build(settings.with_(data_dir=tmp_path / "fresh")).index
    assert list(incremental.chunks) == list(fresh.chunks)
    assert scores_of(incremental) == scores_of(fresh)


@pytest.mark.parametrize("damage", [b"", b"not a zip file", "truncate"])
def test_corrupt_index_file_is_rebuilt(settings, damage):
    good = load_or_build(settings)
    path = index_path(settings, good.fingerprint)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2] if damage == "truncate" else damage)
    bundle = load_or_build(settings)
    assert not bundle.from_cache and "无法读取" in bundle.note
    assert scores_of(bundle.index) == scores_of(good.index)
    assert load_or_build(settings).from_cache  # and the rebuilt file is good again


def test_index_file_with_mismatched_arrays_is_rebuilt(settings):
    good = load_or_build(settings)
    path = index_path(settings, good.fingerprint)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["idf"] = arrays["idf"][:-1]
    with path.open("wb") as f:
        np.savez(f, **arrays)
    bundle = load_or_build(settings)
    assert not bundle.from_cache and "ValueError" in bundle.note


def _rewrite_meta(path, **changes) -> None:
    """Rewrite the saved file as np.savez would, with `changes` applied to its meta record."""
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    arrays["meta"] = np.frombuffer(json.dumps({**meta, **changes}).encode("utf-8"), dtype=np.uint8)
    with path.open("wb") as f:
        np.savez(f, **arrays)


def test_index_file_of_the_previous_format_is_rebuilt_not_misread(settings):
    good = load_or_build(settings)
    path = index_path(settings, good.fingerprint)
    _rewrite_meta(path, format=FORMAT_VERSION - 1)
    with pytest.raises(ValueError, match=f"format {FORMAT_VERSION - 1} is not {FORMAT_VERSION}"):
        load_index(path)
    bundle = load_or_build(settings)
    assert not bundle.from_cache and "无法读取" in bundle.note
    assert scores_of(bundle.index) == scores_of(good.index)
    assert load_or_build(settings).from_cache


def test_a_file_np_savez_wrote_still_loads(settings):
    """Unaligned members (np.savez's layout) are copied into memory instead of mapped."""
    good = load_or_build(settings)
    path = index_path(settings, good.fingerprint)
    _rewrite_meta(path)
    bundle = load_or_build(settings)
    assert bundle.from_cache and scores_of(bundle.index) == scores_of(good.index)
    assert list(bundle.index.chunks) == list(good.index.chunks)


def test_saved_arrays_are_aligned_views_of_a_private_mapping_and_numpy_reads_the_file(settings):
    bundle = load_or_build(settings)
    path = index_path(settings, bundle.fingerprint)
    with np.load(path) as data:  # still an ordinary .npz
        assert data["terms"].tobytes() == bundle.index.retriever.terms.tobytes()
    arrays = read_npz(path)
    assert arrays["data"].base is not None and not arrays["data"].flags.owndata and not arrays["data"].flags.writeable
    assert all(a.ctypes.data % 64 == 0 for a in arrays.values() if a.size)
    assert sorted(p.name for p in settings.index_dir.iterdir()) == ["chunks", path.name]  # the copy has no name


def test_a_served_index_survives_its_file_being_rewritten_in_place(settings):
    """The served arrays map a private copy: truncating or rewriting the file (e.g. `cp` over it
    from a backup) must not kill the process with SIGBUS or change what it serves."""
    first = load_or_build(settings)
    served = load_or_build(settings)
    assert served.from_cache
    path = index_path(settings, served.fingerprint)
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.truncate(size // 3)
    assert scores_of(served.index) == scores_of(first.index)
    assert served.index.chunks[25].page_content == first.index.chunks[25].page_content
    with path.open("r+b") as f:
        f.write(b"\xff" * (size // 3))
    assert scores_of(served.index) == scores_of(first.index)


def test_a_flipped_byte_in_the_postings_is_caught_and_rebuilt(settings):
    good = load_or_build(settings)
    path = index_path(settings, good.fingerprint)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("data.npy")
    with path.open("r+b") as f:
        f.seek(info.header_offset + 30 + len(info.filename) + len(info.extra) + info.file_size - 1)
        last = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([last[0] ^ 0x01]))
    with pytest.raises(zipfile.BadZipFile, match="CRC"):
        load_index(path)
    bundle = load_or_build(settings)
    assert not bundle.from_cache and "无法读取" in bundle.note
    assert scores_of(bundle.index) == scores_of(good.index)


def test_damaged_chunk_cache_entry_is_resplit(settings, split_calls):
    load_or_build(settings)
    index_path(settings, corpus_fingerprint(settings)).unlink()
    entry = sorted((settings.index_dir / store.CHUNK_DIR).glob("*.json"))[0]
    entry.write_text('[["only text"]]', encoding="utf-8")
    split_calls.clear()
    bundle = load_or_build(settings)
    assert len(split_calls) == 1 and len(bundle.index) == 26


def test_unwritable_index_dir_still_gives_an_index(settings):
    settings.data_dir.mkdir(parents=True)
    settings.index_dir.write_text("a file where the folder should be", encoding="utf-8")
    bundle = load_or_build(settings)
    assert len(bundle.index) == 26 and not bundle.from_cache
    assert "无法写入" in bundle.note


def test_empty_file_is_skipped_and_reported(settings):
    (settings.corpus_dir / "00-空.md").write_text("  \n", encoding="utf-8")
    bundle = load_or_build(settings)
    assert "00-空.md" not in bundle.files and any("00-空.md" in s for s in bundle.skipped)
    assert load_or_build(settings).skipped == bundle.skipped  # remembered by the saved index


def test_missing_corpus_folder_is_a_corpus_error(settings):
    shutil.rmtree(settings.corpus_dir)
    with pytest.raises(CorpusError, match="不存在"):
        load_or_build(settings)


# -- CLI --------------------------------------------------------------------------------------------

def _env(monkeypatch, settings):
    monkeypatch.setenv("XIAOE_CORPUS_DIR", str(settings.corpus_dir))
    monkeypatch.setenv("XIAOE_DATA_DIR", str(settings.data_dir))
    monkeypatch.delenv("XIAOE_RETRIEVER", raising=False)


def test_cli_index_build_then_info(settings, monkeypatch, capsys):
    _env(monkeypatch, settings)
    assert cli_main(["index", "info"]) == 0
    assert "还没有保存的索引" in capsys.readouterr().out
    assert cli_main(["index", "build"]) == 0
    assert "新建索引（3 个有改动的文件重新切分，其余 0 个文件内容没变，沿用缓存的切分结果）：26 个片段" in capsys.readouterr().out
    assert cli_main(["index", "build"]) == 0
    assert "载入已保存的索引" in capsys.readouterr().out
    assert cli_main(["index", "info"]) == 0
    assert "26 个片段，来自 3 个文件" in capsys.readouterr().out


def test_cli_index_build_force_rebuilds(settings, monkeypatch, capsys):
    _env(monkeypatch, settings)
    cli_main(["index", "build"])
    capsys.readouterr()
    assert cli_main(["index", "build", "--force"]) == 0
    assert "新建索引（0 个有改动的文件重新切分，其余 3 个文件内容没变，沿用缓存的切分结果）" in capsys.readouterr().out


def test_cli_index_info_reports_a_damaged_index(settings, monkeypatch, capsys):
    _env(monkeypatch, settings)
    cli_main(["index", "build"])
    index_path(settings, corpus_fingerprint(settings)).write_bytes(b"garbage")
    capsys.readouterr()
    assert cli_main(["index", "info"]) == 0
    assert "无法读取" in capsys.readouterr().out


def test_fingerprint_sees_a_same_size_edit(settings):
    first = settings.corpus_dir / "01-口语课分级说明.md"
    before = corpus_fingerprint(settings)
    text = first.read_text(encoding="utf-8")
    first.write_text(text.replace("四级", "五级", 1), encoding="utf-8")  # same byte length, new mtime
    assert corpus_fingerprint(settings) != before


def test_fingerprint_matches_the_one_load_or_build_reports(settings):
    assert load_or_build(settings).fingerprint == corpus_fingerprint(settings)
