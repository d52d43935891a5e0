"""Real categories whose set relations everybody knows: the belief-bias bank of ``syllogism``.

A conclusion "All/No/Some S are (not) P" about two real categories is believable
when it is true of the world and unbelievable when it is false; its truth follows
from the relation of S to P:

==========  =======  ======  ======  ===========
relation    All      No      Some    Some ... not
==========  =======  ======  ======  ===========
subset      true     false   true    false
superset    false    false   true    true
disjoint    false    true    false   true
overlap     false    false   true    true
==========  =======  ======  ======  ===========

:data:`RELATIONS` keeps, per mood and believability, only the relations whose
sentences read naturally: "Some roses are flowers" (true, but implies "not all")
and "Some dogs are not fish" (true, but odd) are never used as believable
conclusions.

Relations come from a hand-written taxonomy (a tree: a category is a subset of its
ancestors; categories of different domains are disjoint; inside ``animals``, whose
classes and species partition cleanly, categories on different branches are
disjoint too) and a short list of overlapping pairs. Other within-domain pairs
(flowers / trees: flowering trees exist) are never used, nor categories people may
classify two ways (pianos: instruments or furniture; whales: "fish").
"""

from __future__ import annotations

from itertools import permutations

#: category -> parent; a category without a parent is a domain root.
TAXONOMY: dict[str, str] = {
    # animals (partitioned: every two categories on different branches are disjoint)
    "mammals": "animals", "birds": "animals", "fish": "animals", "reptiles": "animals", "insects": "animals",
    "amphibians": "animals",
    "dogs": "mammals", "cats": "mammals", "horses": "mammals", "cows": "mammals", "lions": "mammals",
    "sparrows": "birds", "eagles": "birds", "penguins": "birds", "owls": "birds",
    "salmon": "fish", "sharks": "fish", "trout": "fish",
    "snakes": "reptiles", "lizards": "reptiles", "crocodiles": "reptiles",
    "bees": "insects", "ants": "insects", "beetles": "insects",
    "frogs": "amphibians", "toads": "amphibians",
    # plants
    "flowers": "plants", "trees": "plants", "ferns": "plants",
    "roses": "flowers", "tulips": "flowers", "daisies": "flowers",
    "oaks": "trees", "pines": "trees", "maples": "trees",
    # artefacts
    "cars": "vehicles", "trucks": "vehicles", "buses": "vehicles", "bicycles": "vehicles", "tractors": "vehicles",
    "hammers": "tools", "saws": "tools", "screwdrivers": "tools", "wrenches": "tools",
    "violins": "musical instruments", "cellos": "musical instruments", "trumpets": "musical instruments",
    "guitars": "musical instruments", "flutes": "musical instruments",
    "chairs": "pieces of furniture", "tables": "pieces of furniture", "sofas": "pieces of furniture",
    "wardrobes": "pieces of furniture",
}
#: Domains whose categories on different branches are disjoint.
PARTITIONED = frozenset({"animals"})
#: Pairs that overlap (some S are P, some S are not P, some P are not S).
OVERLAPS = (
    ("birds", "pets"), ("fish", "pets"), ("snakes", "pets"), ("cars", "electric vehicles"),
    ("students", "athletes"), ("teachers", "musicians"),
)

#: Every category of the taxonomy.
TREE = frozenset(TAXONOMY) | frozenset(TAXONOMY.values())

#: (mood, believable) -> the relations of (S, P) that make the conclusion so.
RELATIONS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("A", True): ("subset",), ("A", False): ("superset", "disjoint", "overlap"),
    ("E", True): ("disjoint",), ("E", False): ("subset", "superset", "overlap"),
    ("I", True): ("superset", "overlap"), ("I", False): ("disjoint",),
    ("O", True): ("superset", "overlap"), ("O", False): ("subset",),
}


def ancestors(category: str) -> list[str]:
    """The category's ancestors in :data:`TAXONOMY`, nearest first."""
    out = []
    while category in TAXONOMY:
        category = TAXONOMY[category]
        out.append(category)
    return out


def relation(s: str, p: str) -> str | None:
    """The known relation of S to P (``subset``, ``superset``, ``disjoint``,
    ``overlap``), None when the bank does not vouch for one."""
    if (s, p) in OVERLAPS or (p, s) in OVERLAPS:
        return "overlap"
    if s not in TREE or p not in TREE:
        return None  # e.g. "pets" and "tools": the bank says nothing
    line_s, line_p = [s, *ancestors(s)], [p, *ancestors(p)]
    if p in line_s[1:]:
        return "subset"
    if s in line_p[1:]:
        return "superset"
    if line_s[-1] != line_p[-1]:
        return "disjoint"
    return "disjoint" if line_s[-1] in PARTITIONED else None


def pairs_by_relation() -> dict[str, list[tuple[str, str]]]:
    """Every ordered pair of distinct categories the bank vouches for, by relation."""
    categories = sorted(TREE | {c for pair in OVERLAPS for c in pair})
    out: dict[str, list[tuple[str, str]]] = {"subset": [], "superset": [], "disjoint": [], "overlap": []}
    for s, p in permutations(categories, 2):
        rel = relation(s, p)
        if rel is not None:
            out[rel].append((s, p))
    return out


PAIRS = pairs_by_relation()
