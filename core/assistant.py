"""The one composition of 小E: settings + saved defaults + glossary + index + chat model → retrieve,
gate, grade (the uncertain band only, core.answering.grader), answer, check.

Every caller goes through an `Assistant`: the Ask page, `python -m core ask/demo/eval`, batch runs,
the tuning page, the glossary page's impact counts and every bench script. Nothing else wires the
steps together, so what the tuning page predicts is what the Ask page does. The steps themselves
live in their own modules (core.answering.rag retrieval and checks, core.answerability.decision ranking and judging,
core.answerability.gate the decision, core.answering.grader the model's verdict on the uncertain band, core.answering.offline /
core.answering.providers the models); this module only composes them.
It opens no database itself except through `open_assistant`, which reads the saved defaults and
the glossary from their stores, and hands it the approved answers and the documents' open contradictions to read.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import cast

from langchain_core.language_models import BaseChatModel

from core.answerability.decision import analyzer_for, asked_check, asked_rank, asked_retrieve, prefix_measures, rank
from core.answerability.gate import decide
from core.answerability.glossary import Glossary, expand_query, load_starter
from core.answerability.rules import parse_rules
from core.answerability.terms import TermAnalyzer
from core.answering.fact_refs import citer, with_fact_chunks
from core.answering.grader import apply_grade, grade, in_band
from core.answering.offline import OfflineAnswerer
from core.answering.own_case import compute, phrase, sources
from core.answering.rag import finish, refusal, retrieve, stream_text, validate_question
from core.case import ALL_KINDS, KindSet, parse_kinds, read_case
from core.case.asked import parse_asked
from core.case.intent import computation
from core.conversations import RULE_NAMES as FOLLOWUP_RULES
from core.conversations import parse_rules as parse_followup_rules
from core.conversations import read_in_context
from core.conversations.answered import answer_words
from core.conversations.model_rewrite import rewrite as rewrite_with_model
from core.conversations.text import without_levels
from core.errors import ModelError
from core.facts import NO_FACTS, SchoolFacts, read_chunk_facts
from core.knobs import MAX_TOP_K, Knobs
from core.language.citations import remap
from core.privacy.mask import KIND_NAMES as MASK_KINDS
from core.privacy.mask import mask, masked_kinds, without_placeholders
from core.retrieval.hashes import corpus_hashes, sha256_text
from core.retrieval.index import SearchIndex
from core.retrieval.store import IndexBundle
from core.reuse.drift import cited_contradictions, related_change
from core.reuse.guards import check, pick
from core.reuse.match import scoring
from core.settings import Settings
from core.stores.approved import ApprovedStore
from core.stores.contradictions import ContradictionStore
from core.stores.corpus_versions import VersionLog, version_log
from core.values import ApprovedAnswer, Failure, Gate, Hit, Outcome, Problem, RAGAnswer, Retrieval, Reuse, Usage
from core.values.contradictions import CONTRADICTED_CODE
from core.values.conversations import Standalone, Turn
from core.values.reuse import ACTIVE

RETRIEVALS_KEPT = 4096


@dataclass(frozen=True, eq=False)
class Assistant:
    """The assembled chain. Build with `build_assistant` (parts in hand) or `open_assistant` (from settings)."""

    settings: Settings
    index: SearchIndex
    glossary: Glossary | None
    knobs: Knobs  # the defaults in force: calibrated, then environment, then the saved default
    chat_model: BaseChatModel | None = None  # None: the offline answerer
    analyzer: TermAnalyzer | None = None  # None: the answerability decision is off
    fingerprint: str = ""
    approved: ApprovedStore | None = None  # approved answers to reuse (None: reuse off)
    contradictions: ContradictionStore | None = None  # where the documents disagree (None: not checked)
    facts: SchoolFacts = NO_FACTS  # the school's facts, read from the documents with the index (core.facts)
    case_kinds: KindSet = ALL_KINDS  # the student's-case fact kinds switched on (XIAOE_CASE_KINDS)
    mask_kinds: frozenset[str] = frozenset(MASK_KINDS)  # personal data masked before anything else (XIAOE_MASKING)
    followup_rules: frozenset[str] = frozenset(FOLLOWUP_RULES)  # the follow-up rules switched on (XIAOE_FOLLOWUP_RULES)
    _terms: dict = field(default_factory=dict, repr=False)  # approved question → its terms (this analyzer)
    _drifts: dict = field(default_factory=dict, repr=False)  # (answer id, version, generation) → its drift
    # the database's corpus version log, read once per generation: (generation, VersionLog) — every approved answer's
    # drift at that generation is computed from the one read, not from a read of its own
    _versions: list = field(default_factory=lambda: [None], repr=False)
    # question → its Retrieval: a pure function of the index, the glossary and the question, so a repeated question
    # (the student service sees many) skips retrieval and ranking; bounded, oldest dropped first
    _retrievals: dict = field(default_factory=dict, repr=False)
    _documents: list = field(default_factory=list, repr=False)  # the chunks' text joined, read once (answer_words)

    @property
    def offline(self) -> bool:
        return self.chat_model is None or isinstance(self.chat_model, OfflineAnswerer)

    def validate(self, question: object) -> str:
        """The stripped question with the student's personal data masked (core.privacy.mask: 〔手机号1〕 …), or
        InvalidQuestion (empty, or longer than XIAOE_MAX_QUESTION_CHARS). Everything after this sees the masked text
        only: retrieval, the gate, the answer, the queue item. A text already masked stays as it is."""
        return mask(validate_question(question, self.settings.max_question_chars), kinds=self.mask_kinds).text

    def in_context(self, message: object, previous: Turn | None) -> Standalone:
        """The standalone question a student's message stands for after `previous` (core.conversations): when the
        message might be a follow-up, the gate is asked whether it stands alone (no model is called); with
        XIAOE_FOLLOWUP_MODEL=on and a chat model, a follow-up's model rewrite stands if it passes the guard."""
        text = self.validate(message)
        alone = True
        if previous is not None and not previous.refused:
            alone = not self.gate(self.retrieve(text)).refused
        read = read_in_context(text, previous, stands_alone=alone, facts=self.facts, rules=self.followup_rules)
        if self.settings.followup_model == "on" and not self.offline and previous is not None:
            read, _why = rewrite_with_model(self.chat_model, previous.standalone, read, self.facts)
        return read

    def answer_words(self, outcome: Outcome) -> tuple[tuple[str, ...], ...]:
        """The documents' words an answered outcome's answer used (core.conversations.answered), kept with its turn
        for the next message; () for a refusal, a failure or a held item's empty answer."""
        if outcome.refused or outcome.failure is not None or outcome.answer is None:
            return ()
        if not self._documents:
            self._documents.append("\n".join(c.page_content for c in self.index.chunks))
        return answer_words(outcome.answer.text, self._documents[0])

    def turn_of(self, outcome: Outcome) -> Turn:
        """The turn an outcome leaves for the next message of its thread, kept nowhere (the console's 「接着问」, the
        follow-up bench); the student service keeps its turns in core.stores.turns."""
        return Turn(outcome.question, outcome.refused or outcome.failure is not None,
                    answer_words=self.answer_words(outcome))

    def retrieve(self, question: object) -> Retrieval:
        """Validate, retrieve once for MAX_TOP_K with the glossary-expanded query, rank, and measure
        every prefix of the ranking for the decision. The gate, the prompt and the checks keep the
        question as asked."""
        text = self.validate(question)
        known = self._retrievals.get(text)
        if known is not None:
            return known
        read = without_placeholders(text)  # a placeholder (〔手机号1〕) is no term the documents could lack
        hits = self._search(read)
        if self.analyzer is None:
            found = Retrieval(question=text, candidates=hits)
        else:
            hits = asked_retrieve(self.analyzer.rules, read, hits, self._search, parse_asked(self.settings.asked_kinds),
                                  (self.facts.every_level[0], without_levels(read, self.facts)))
            case = read_case(text, self.facts, self.case_kinds)
            terms, context = self.analyzer.split(read, self.glossary, case=case)
            ranked = rank(terms, hits)
            own_case = computation(case, text) is not None
            asked = asked_check(self.analyzer.rules, text, terms, ranked, parse_asked(self.settings.asked_kinds),
                                own_case=own_case, every_level=self.facts.every_level)
            ranked, asked = asked_rank(self.analyzer.rules, ranked, asked)
            found = Retrieval(question=text, candidates=ranked, terms=terms, context=context,
                              measures=prefix_measures(terms, ranked, asked, self._cover(text) if own_case else (),
                                                       self.analyzer.rules))
        if len(self._retrievals) >= RETRIEVALS_KEPT:
            self._retrievals.pop(next(iter(self._retrievals), None), None)
        self._retrievals[text] = found
        return found

    def _search(self, text: str) -> tuple[Hit, ...]:
        """The MAX_TOP_K best chunks for `text`, searched with its glossary expansion."""
        return retrieve(expand_query(text, self.glossary) if self.glossary else text, self.index, MAX_TOP_K)

    def _cover(self, text: str) -> tuple[str, ...]:
        """What coverage counts beside the passing chunks for a computation of the student's own case: the cover
        rules switched on (core.answerability.rules), given the fact sentences the computation stands on."""
        rules = self.analyzer.rules.at("cover") if self.analyzer is not None else ()
        own = compute(text, self.facts, self.case_kinds) if rules else None
        if own is None:
            return ()
        sentences = [source.sentence for source in sources(own)]
        return tuple(t for rule in rules for t in cast("tuple[str, ...]", rule.function(text, sentences)))

    def gate(self, retrieval: Retrieval, knobs: Knobs | None = None) -> Gate:
        """The decision at `knobs` (default: the knobs in force); no model is involved."""
        return decide(retrieval, knobs or self.knobs)

    @property
    def grades(self) -> bool:
        """True when the grader takes part: XIAOE_GRADER=band and a real chat model is configured."""
        return self.settings.grader == "band" and not self.offline

    def grade(self, gate: Gate) -> Gate:
        """The gate after the grader (core.answering.grader): a question the gate refused narrowly (the uncertain
        band) goes to the chat model once; a valid "yes" answers, anything else refuses with the verdict
        as the reason. Every other gate is returned as it is, without a model call."""
        if not self.grades or not in_band(gate, self.settings.grader_band):
            return gate
        return apply_grade(gate, grade(gate, self.chat_model))

    def decide(self, retrieval: Retrieval, knobs: Knobs | None = None) -> Gate:
        """The whole decision before any answer is written: the gate at `knobs`, then the grader."""
        return self.grade(self.gate(retrieval, knobs))

    def respond_stream(self, asked: str | Retrieval, knobs: Knobs | None = None) -> Iterator[str | Outcome]:
        """The answer's text piece by piece as the model writes it, then the question's one `Outcome`
        (always last, also for a refusal or a model failure). `asked` is the question, or its
        `Retrieval` when the caller kept it (the Ask page retrieves once and re-decides on slider moves).
        An approved answer that passes every guard (core.reuse.guards) is served before any model call.
        Raises InvalidQuestion for an empty or too long question; a model failure is an outcome."""
        retrieval = asked if isinstance(asked, Retrieval) else self.retrieve(asked)
        gate = self.gate(retrieval, knobs)
        reuse = self.reuse(retrieval, gate)
        if reuse is not None and reuse.served is not None:
            yield self._reused(retrieval, gate, reuse)
            return
        yield from self.outcome_stream(self.grade(gate), reuse)

    def reuse(self, retrieval: Retrieval, gate: Gate) -> Reuse | None:
        """The approved answers citing this question's candidate places, each checked by the guards. None when reuse
        is off or nothing was approved near this question. Reads the database, never writes it (a stale answer is
        not served; suspending it is the store's, when the version is saved: core.stores.answer_refresh); never
        calls a model."""
        if self.approved is None or self.analyzer is None or self.settings.reuse != "on":
            return None
        # with the database's corpus generation, read in the same statement: it may be ahead of this index
        found, corpus = self.approved.near_at({(h.source, h.heading) for h in retrieval.candidates})
        if not found:
            return None
        candidate_hashes = {sha256_text(h.text) for h in retrieval.candidates}
        scored, hashes = scoring(retrieval.terms, self.facts), corpus_hashes(self.index)
        results = [check(a, self._terms_of(a.question), retrieval, gate, hashes, candidate_hashes,
                         self.settings.reuse_threshold, drift=self._drift(a, corpus), facts=self.facts,
                         kinds=self.case_kinds, scored=scored)
                   for a in found]
        return Reuse(pick(results), tuple(results), self.settings.reuse_threshold)

    def _drift(self, answer: ApprovedAnswer, corpus: int) -> str:
        """What the documents changed since `answer` was approved that says what it says (core.reuse.drift),
        read from the corpus versions in the database, so an instance whose index has not caught up with another
        instance's save sees it too; read once per answer version and database `corpus` generation."""
        if answer.status != ACTIVE:
            return ""
        key = (answer.id, answer.version, corpus)
        if key not in self._drifts:
            self._drifts[key] = related_change(answer.text, self._version_log(corpus).changes_since(answer.approved_at))
        return self._drifts[key]

    def _version_log(self, corpus: int) -> VersionLog:
        """The corpus version log as of database generation `corpus`, read once per generation (answering threads
        share it; two threads reading it at once is harmless, the later one is kept)."""
        kept = self._versions[0]
        if kept is None or kept[0] != corpus:
            kept = (corpus, version_log(self.approved.db))
            self._versions[0] = kept
        return kept[1]

    def _terms_of(self, question: str):
        if question not in self._terms:
            case = read_case(question, self.facts, self.case_kinds)
            self._terms[question] = self.analyzer.split(question, self.glossary, case=case)[0]
        return self._terms[question]

    def _reused(self, retrieval: Retrieval, gate: Gate, reuse: Reuse) -> Outcome:
        """The approved text on today's chunks: its citations moved onto the candidates with the same content,
        then every check run again (a failed check queues it)."""
        approved = reuse.answer
        by_hash = {sha256_text(h.text): h for h in retrieval.candidates}
        cited = sorted(approved.citations, key=lambda c: c.number)
        hits = tuple(replace(by_hash[c.sha256], passed=True) for c in cited)
        text = remap(approved.text, {c.number: i for i, c in enumerate(cited, start=1)})
        rest = tuple(replace(h, passed=False) for h in retrieval.candidates if h not in {by_hash[c.sha256] for c in cited})
        served = replace(gate, candidates=hits + rest[:max(0, gate.k - len(hits))], refused=False,
                         reason=f"已审答案 #{approved.id}（{approved.approver} 通过）：{reuse.served.describe()}")
        return Outcome(gate, answer=self._flag(finish(served, text, self.facts)), fingerprint=self.fingerprint,
                       reuse=reuse)

    def respond(self, asked: str | Retrieval, knobs: Knobs | None = None) -> Outcome:
        """retrieve → gate → grade → answer → check, in one call: the question's one `Outcome`."""
        for piece in self.respond_stream(asked, knobs):
            if isinstance(piece, Outcome):
                return piece
        raise AssertionError("respond_stream ends with an Outcome")

    def outcome_stream(self, gate: Gate, reuse: Reuse | None = None) -> Iterator[str | Outcome]:
        """Answer a decided gate: refuse without a model call, or stream the model and check its text. `reuse`
        (near misses of approved answers) travels with the outcome."""
        if gate.refused:
            yield Outcome(gate, answer=refusal(gate), fingerprint=self.fingerprint, reuse=reuse)
            return
        pieces: list[str] = []
        usage: dict[str, int] = {}
        start = time.perf_counter()
        own = compute(gate.question, self.facts, self.case_kinds)
        answering = self._with_fact_chunks(gate, own)
        if own is not None and self.offline:  # the student's own case: computed from the facts, then phrased
            text = phrase(own, citer(answering.hits))
            yield text
            answer = self._flag(replace(finish(answering, text, self.facts), own_case=own))
            yield Outcome(gate, answer=answer, fingerprint=self.fingerprint, usage=Usage(ms=_ms(start)), reuse=reuse)
            return
        try:
            for piece in stream_text(answering, self.chat_model, usage=usage):
                pieces.append(piece)
                yield piece
            answer = self._flag(finish(answering, "".join(pieces), self.facts, by_model=not self.offline))
        except ModelError as error:
            yield Outcome(gate, failure=Failure(error.kind, str(error)), fingerprint=self.fingerprint, reuse=reuse)
            return
        spent = Usage(prompt_tokens=usage.get("input_tokens", 0), completion_tokens=usage.get("output_tokens", 0),
                      ms=_ms(start))
        yield Outcome(gate, answer=answer, fingerprint=self.fingerprint, usage=spent, reuse=reuse)

    def _flag(self, answer: RAGAnswer) -> RAGAnswer:
        """The answer with a `contradicted_source` problem (lane 资料已更新) for each sentence it rests on that the
        documents contradict since a save changed the rule (core.reuse.drift.cited_contradictions, both sentences in
        the message), read from the database, so every instance flags it until the sentence is fixed."""
        if self.contradictions is None or answer.refused:
            return answer
        found = cited_contradictions(answer.text, answer.hits, self.contradictions.current())
        if not found:
            return answer
        return replace(answer, problems=(*answer.problems, *(Problem(CONTRADICTED_CODE, c.describe()) for c in found)))

    def _with_fact_chunks(self, gate: Gate, own) -> Gate:
        """The gate the answer is written from: when the question asks a computation of the student's own case,
        the chunks holding the facts it uses (the level's tuition, a level's lessons: core.answering.fact_refs) join
        the passing chunks, after them. The decision (refuse or answer, which chunks passed) is the gate's."""
        if own is None:
            return gate
        kept = tuple(h for h in gate.candidates if h.passed)
        hits = with_fact_chunks(kept, sources(own), self.index)
        if len(hits) == len(kept):
            return gate
        extra = hits[len(kept):]
        return replace(gate, candidates=kept + extra + tuple(h for h in gate.candidates if not h.passed))

    def outcome(self, gate: Gate) -> Outcome:
        """`outcome_stream` drained: the Outcome of a decided gate."""
        *_, last = self.outcome_stream(gate)
        return last

    def answer(self, gate: Gate) -> RAGAnswer:
        """The answer of a decided gate (ModelError when the model failed): `outcome` for callers that want
        the answer alone."""
        return _answer_of(self.outcome(gate))

    def ask(self, question: object, knobs: Knobs | None = None) -> RAGAnswer:
        """`respond` for callers that want the answer alone (ModelError when the model failed)."""
        return _answer_of(self.respond(question, knobs))

    def with_model(self, chat_model: BaseChatModel | None) -> Assistant:
        return replace(self, chat_model=chat_model)

    def with_knobs(self, knobs: Knobs) -> Assistant:
        """The same chain with other knobs in force (the calibration tries the ones it chose)."""
        return replace(self, knobs=knobs, _terms={})


def _ms(start: float) -> int:
    return round((time.perf_counter() - start) * 1000)


def build_assistant(settings: Settings, index: SearchIndex | IndexBundle, glossary: Glossary | None, *,
                    chat_model: BaseChatModel | None = None, knobs: Knobs | None = None,
                    approved: ApprovedStore | None = None,
                    contradictions: ContradictionStore | None = None) -> Assistant:
    """Compose from parts already loaded (the console caches them). With XIAOE_ANSWERABILITY=off the
    ranking score is the retrieval score and the threshold is the only gate, as in the seed."""
    bundle = index if isinstance(index, IndexBundle) else None
    search_index = bundle.index if bundle else index
    decision_on = settings.answerability == "on" and len(search_index) > 0
    analyzer = (analyzer_for(search_index, settings.index_dir if bundle else None, glossary,
                             parse_rules(settings.answerability_rules)) if decision_on else None)
    return Assistant(settings=settings, index=search_index, glossary=glossary, knobs=knobs or settings.knobs,
                     chat_model=chat_model, analyzer=analyzer,
                     fingerprint=bundle.fingerprint if bundle else search_index.fingerprint,
                     approved=approved if settings.reuse == "on" else None, contradictions=contradictions,
                     facts=bundle.facts if bundle else read_chunk_facts(search_index.chunks),
                     case_kinds=parse_kinds(settings.case_kinds), mask_kinds=masked_kinds(settings.masking),
                     followup_rules=parse_followup_rules(settings.followup_rules))


def open_assistant(settings: Settings, *, with_model: bool = True) -> Assistant:
    """Load everything `settings` names: the saved defaults, the index, the consultants' glossary
    and the approved answers from the database and (with `with_model`) the configured chat model; the
    offline answerer when none is configured."""
    from core.answering.providers import make_chat_model
    from core.retrieval.store import load_or_build
    from core.stores.db import open_database
    from core.stores.defaults import effective_settings
    from core.stores.glossary import GlossaryStore

    settings = effective_settings(settings)
    bundle = load_or_build(settings)
    glossary = GlossaryStore.open(settings).load()
    model = make_chat_model(settings) if with_model else None
    db = open_database(settings.db_url)
    approved = ApprovedStore(db) if settings.reuse == "on" else None
    return build_assistant(settings, bundle, glossary, chat_model=model, approved=approved,
                           contradictions=ContradictionStore(db))


def answer(question: str, index: SearchIndex, llm: BaseChatModel | None = None, *, k: int | None = None,
           min_score: float | None = None, decide: bool | None = True) -> RAGAnswer:
    """Answer from `index` or refuse, as the console would with the shipped starter glossary and the
    calibrated knobs; `llm=None` uses the offline answerer. `decide=None` (or False) keeps the seed's
    threshold-only gate. A thin convenience over `Assistant` for scripts and tests."""
    on = decide not in (None, False)
    settings = Settings(answerability="on" if on else "off")
    if not on and min_score is None:
        from core.settings import THRESHOLD_ONLY_MIN_SCORE
        min_score = THRESHOLD_ONLY_MIN_SCORE
    assistant = build_assistant(settings, index, _starter() if on else None, chat_model=llm)
    return assistant.ask(question, assistant.knobs.with_(threshold=min_score, k=k))


_STARTER: list[Glossary] = []


def _starter() -> Glossary:
    if not _STARTER:
        _STARTER.append(load_starter())
    return _STARTER[0]


def _answer_of(outcome: Outcome) -> RAGAnswer:
    if outcome.failure is not None:
        raise ModelError(outcome.failure.message, kind=outcome.failure.kind)
    return outcome.answer
