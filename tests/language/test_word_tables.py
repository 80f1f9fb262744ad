"""jieba's dictionary held as tries: the same values as dicts read from jieba's files, the same cuts."""

from __future__ import annotations

from pathlib import Path

import jieba
import pytest

from core.language.lexicon import lexicon, new_tokenizer
from core.language.word_tables import FreqOverlay, TagTable, WordTable

SENTENCES = ["学员在开课后第三课时内申请转班，手续费五十元。", "请问雅思保过班多少钱？", "人工客服晚上几点下班",
             "上了几节课以后退费怎么算", "ABC英语和abc英语一样吗"]


def _read_as_dicts() -> tuple[dict[str, int], int, dict[str, str], dict[str, float]]:
    """jieba's dict.txt and idf.txt read into dicts the way the lexicon used to (last line wins)."""
    freq: dict[str, int] = {}
    tags: dict[str, str] = {}
    total = 0
    for line in Path(jieba.__file__).with_name("dict.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        freq[parts[0]] = int(parts[1])
        total += int(parts[1])
        if len(parts) > 2:
            tags[parts[0]] = parts[2]
        for end in range(1, len(parts[0])):
            freq.setdefault(parts[0][:end], 0)
    idf = {}
    for line in (Path(jieba.__file__).with_name("analyse") / "idf.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2:
            idf[parts[0]] = float(parts[1])
    return freq, total, tags, idf


def test_the_lexicon_answers_exactly_what_dicts_of_jiebas_files_answer():
    freq, total, tags, idf = _read_as_dicts()
    lex = lexicon()
    assert lex.total == total
    assert len(lex.freq) == len(freq) and all(lex.freq[w] == c for w, c in freq.items())
    assert len(lex.tags) == len(tags) and all(lex.tags[w] == t for w, t in tags.items())
    assert len(lex.idf) == len(idf) and all(lex.idf[w] == v for w, v in idf.items())
    values = sorted(idf.values())
    assert lex.median_idf == values[len(values) // 2]
    assert "不是一个词语啊" not in lex.freq and lex.freq.get("不是一个词语啊") is None
    assert lex.tags.get("不是一个词语啊", "") == "" and lex.idf.get("不是一个词语啊", 1.5) == 1.5


def test_a_private_tokenizer_cuts_as_jieba_does_with_its_own_dictionary(tmp_path):
    own = jieba.Tokenizer()
    own.tmp_dir = str(tmp_path)  # jieba caches its parsed dictionary there
    ours = new_tokenizer([], [])
    for sentence in SENTENCES:
        for hmm in (False, True):
            assert list(ours.cut(sentence, HMM=hmm)) == list(own.cut(sentence, HMM=hmm))


def test_added_words_stay_in_the_overlay_and_the_shared_table_is_untouched():
    lex = lexicon()
    before = len(lex.freq)
    tokenizer = new_tokenizer(["转班"], ["保过班"])
    assert isinstance(tokenizer.FREQ, FreqOverlay)
    assert tokenizer.FREQ["转班"] > 0 and "保过班" in tokenizer.FREQ and "保过" in tokenizer.FREQ
    assert len(lex.freq) == before and "保过班" not in lex.freq
    assert "保过班" in tokenizer.cut("雅思保过班多少钱", HMM=False)
    assert "保过班" not in new_tokenizer([], []).cut("雅思保过班多少钱", HMM=False)


def test_a_firm_word_wins_over_the_rarer_dictionary_words_it_begins_and_the_shared_table_is_untouched():
    lex = lexicon()
    assert new_tokenizer([], []).lcut("托福考多少分", HMM=False)[0] == "托福考"  # jieba lists 托福考 (3)
    assert new_tokenizer([], [], ["雅思"]).lcut("雅思考到6.5分", HMM=False)[:3] == ["雅思", "考", "到"]
    firm = new_tokenizer([], [], ["托福", "雅思"])
    assert firm.lcut("托福考多少分", HMM=False)[:2] == ["托福", "考"]
    assert firm.lcut("雅思考试多少钱", HMM=False)[:2] == ["雅思", "考试"]
    assert lex.freq["托福考"] == 3 and lex.freq["雅思考试"] == 3  # taken out of the tokenizer's overlay only


def test_tables_built_from_items_keep_the_last_value_and_zero_for_bare_keys():
    table = WordTable.from_items(["甲", "乙", "甲乙"], lambda: [("甲", 3), ("甲乙", 5), ("甲", 4)], "q")
    assert dict(table.items()) == {"甲": 4, "乙": 0, "甲乙": 5}
    with pytest.raises(KeyError):
        table["丙"]
    tags = TagTable.from_items(lambda: [("甲", "n"), ("乙", "v"), ("甲", "a")])
    assert dict(tags.items()) == {"甲": "a", "乙": "v"}


def test_lexicon_saved_and_mapped_back_answers_exactly_what_the_built_one_answers(tmp_path):
    from core.language.lexicon import _load, _save, build_lexicon

    built = build_lexicon()
    _save(built, tmp_path / "lexicon")
    loaded = _load(tmp_path / "lexicon")
    assert (loaded.total, loaded.median_idf) == (built.total, built.median_idf)
    for word in ("学费", "退费", "口语", "学", "不存在的词语啊"):
        assert (word in loaded.freq, loaded.freq.get(word), loaded.tags.get(word), loaded.idf.get(word)) == \
               (word in built.freq, built.freq.get(word), built.tags.get(word), built.idf.get(word))
    assert len(loaded.freq) == len(built.freq) and len(loaded.tags) == len(built.tags)
    assert list(loaded.idf)[:1000] == list(built.idf)[:1000]


def test_lexicon_cache_that_cannot_be_read_is_rebuilt_not_trusted(tmp_path):
    from core.language.lexicon import _load, _save, build_lexicon

    _save(build_lexicon(), tmp_path / "lexicon")
    (tmp_path / "lexicon" / "idf.d").write_bytes(b"\0" * 8)  # a truncated file: fewer values than words
    with pytest.raises(ValueError):
        _load(tmp_path / "lexicon")
