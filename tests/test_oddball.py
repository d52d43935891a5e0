"""Oddball probe: passages, sentence splitting, the embedding score (fake and the real local model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from lm_eval_cog._autoload import task_dir
from lm_eval_cog.probes.oddball.agents import random_comment, surprised_comment
from lm_eval_cog.probes.oddball.banks import TOPICS, UNRELATED
from lm_eval_cog.probes.oddball.scoring import SURPRISE_SENTENCE, split_sentences, surprise
from lm_eval_cog.probes.oddball.stimuli import SYSTEM_PROMPT, OddballParams, documents, make_passage


def test_banks_have_at_least_20_topics_and_no_overlap():
    """>= 20 topics of 12 sentences; unrelated sentences appear in no topic."""
    assert len(TOPICS) >= 20 and all(len(s) == 12 for s in TOPICS.values())
    topical = {s for bank in TOPICS.values() for s in bank}
    assert not topical & set(UNRELATED) and len(UNRELATED) >= 50


def test_passage_has_seven_topical_sentences_and_the_deviant_fifth():
    """AAAA-B-AAA: the topic's first sentence opens, the unrelated one is fifth."""
    for doc in documents(1234, 20):
        sentences = doc["sentences"]
        assert len(sentences) == 8 and sentences[4] == doc["deviant"] and doc["deviant"] in UNRELATED
        assert sentences[0] == TOPICS[doc["topic"]][0]
        assert all(s in TOPICS[doc["topic"]] for i, s in enumerate(sentences) if i != 4)
        assert split_sentences(doc["text"]) == sentences  # the scorer's splitter recovers them


def test_deviant_position_is_a_validated_parameter():
    """Position 2 moves it; position 1 (the topic sentence) is refused with the parameter's name."""
    assert make_passage(5, OddballParams(deviant_position=2))["sentences"][1] == make_passage(5)["deviant"]
    with pytest.raises(ValueError, match="deviant_position"):
        OddballParams(deviant_position=1)


def test_split_sentences_follows_the_published_splitter():
    assert split_sentences("Wow! Is that so? Yes. Fine") == ["Wow!", "Is that so?", "Yes.", "Fine"]
    assert split_sentences("   ") == []


def fake_embed(texts):
    """2-d vectors: the surprise sentence is (1, 0); 'calm' sentences (0, 1); 'half' (1, 1)."""
    table = {SURPRISE_SENTENCE: (1.0, 0.0), "Calm one.": (0.0, 1.0), "Half way.": (1.0, 1.0)}
    return np.array([table[t] for t in texts])


def test_surprise_is_the_highest_cosine_over_the_reply_sentences():
    """cos((1,0),(0,1)) = 0, cos((1,0),(1,1)) = 1/sqrt(2): the max is 0.7071."""
    assert surprise("Calm one. Half way.", fake_embed) == pytest.approx(1 / np.sqrt(2))
    assert surprise("Calm one.", fake_embed) == pytest.approx(0.0)


def test_empty_reply_has_no_score_and_counts_as_invalid():
    """No sentence, nothing to score: process_results reports it invalid with score 0."""
    from lm_eval_cog.lmeval.oddball import process_results

    assert surprise("", fake_embed) is None
    out = process_results(documents(1, 1)[0], ["  "])
    assert out["score"] == 0.0 and out["invalid_rate"] == 1.0


def test_real_local_embedder_ranks_a_surprised_comment_above_an_echo():
    """all-MiniLM-L6-v2 from the PyPI package, offline: noticing the deviant scores higher."""
    from lm_eval_cog.embeddings import embed

    rng = np.random.default_rng(0)
    for doc in documents(1234, 5):
        noticed = surprise(surprised_comment(doc, rng), embed)
        echoed = surprise(random_comment(doc, rng), embed)
        assert noticed > echoed + 0.1


def test_yaml_description_is_the_published_system_prompt():
    """The YAML carries the system prompt as its description; it must not drift from the module."""
    loader = type("TagTolerant", (yaml.SafeLoader,), {})  # reads past the !function tags
    loader.add_multi_constructor("!", lambda loader_, suffix, node: None)
    config = yaml.load((Path(task_dir()) / "reflection_bench" / "cog_oddball.yaml").read_text(), Loader=loader)
    assert config["description"] == SYSTEM_PROMPT + "\n\n"


def _oddball_docs(**kwargs):
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from lm_eval_cog.lmeval.baseline_model import BaselineLM

    metadata = kwargs.pop("metadata", None)
    out = simple_evaluate(
        model=BaselineLM(policy="random"), tasks=["cog_oddball"], limit=2, predict_only=True, log_samples=True,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False, metadata=metadata), **kwargs,
    )
    return [s["doc"] for s in out["samples"]["cog_oddball"]]


def test_lm_evals_seed_argument_sets_the_passage_seed_unless_metadata_gives_one():
    # The same rule as the interactive tasks (test_lmeval_seam): --seed's fourth value is the
    # task seed, 1234 by default; --metadata '{"seed": N}' wins over it.
    from lm_eval_cog.paradigms.base import episode_seed
    from lm_eval_cog.probes.oddball.stimuli import documents

    default = _oddball_docs()
    reseeded = _oddball_docs(fewshot_random_seed=7)
    pinned = _oddball_docs(fewshot_random_seed=7, metadata={"seed": 5})
    assert [d["seed"] for d in default] == [episode_seed(1234, i) for i in range(2)]
    assert [d["seed"] for d in reseeded] == [episode_seed(7, i) for i in range(2)]
    assert [d["text"] for d in reseeded] == [d["text"] for d in documents(7, 2)]
    assert [d["text"] for d in reseeded] != [d["text"] for d in default]
    assert [d["seed"] for d in pinned] == [episode_seed(5, i) for i in range(2)]
