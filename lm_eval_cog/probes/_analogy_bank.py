"""Relation bank of the analogy probe: hand-written word triples and nonce relation templates.

``DOMAINS``: domain -> its two relations and rows ``(head, tail by the first relation, tail
by the second)``: every head has a partner by each relation of its domain (dog: puppy, bark;
France: Paris, French). ``RELATIONS``, derived from it: relation -> pairs ``(head, tail,
associate)``, where ``head : tail`` is an instance of the relation and ``associate`` is the
head's partner by the *other* relation of its domain (cat -> meow beside cat -> kitten;
Spain -> Spanish beside Spain -> Madrid): a word strongly linked to the head, but not by the
relation the analogy asks for, the associative distractor of Gentner's relational-shift
studies. As every associate is itself a tail of another relation, the words that serve as
lures serve as keys just as often, so no option's text tells a lure from a key.

The rows were chosen so that within a relation no head also fits another row's tail (no
"owl : chick" beside "chicken : chick"; no "teacher : chalk" where painters use chalk too;
no country with two common languages): in an item built from one relation only the key
completes the analogy. The tests check what a program can (every head and tail unique
within its domain, associates never tails of the analogy's relation); the real-world
exclusivity is this hand curation.
"""

from __future__ import annotations

Pair = tuple[str, str, str]

#: Domain -> ((first relation, second relation), rows (head, first tail, second tail)).
DOMAINS: dict[str, tuple[tuple[str, str], tuple[Pair, ...]]] = {
    # adult animal : its young, and : the sound it makes
    "animals": (("young", "sound"), (
        ("dog", "puppy", "bark"), ("cat", "kitten", "meow"), ("horse", "foal", "neigh"), ("pig", "piglet", "oink"),
        ("cow", "calf", "moo"), ("sheep", "lamb", "baa"), ("duck", "duckling", "quack"), ("frog", "tadpole", "croak"),
        ("lion", "cub", "roar"), ("owl", "owlet", "hoot"), ("goose", "gosling", "honk"),
    )),
    # country : its capital, and : its language
    "countries": (("capital", "language"), (
        ("France", "Paris", "French"), ("Spain", "Madrid", "Spanish"), ("Italy", "Rome", "Italian"),
        ("Japan", "Tokyo", "Japanese"), ("Germany", "Berlin", "German"), ("Greece", "Athens", "Greek"),
        ("Russia", "Moscow", "Russian"), ("Turkey", "Ankara", "Turkish"), ("Poland", "Warsaw", "Polish"),
        ("Sweden", "Stockholm", "Swedish"), ("Portugal", "Lisbon", "Portuguese"), ("Hungary", "Budapest", "Hungarian"),
    )),
    # worker : workplace, and : characteristic tool
    "workers": (("workplace", "tool"), (
        ("painter", "studio", "brush"), ("farmer", "farm", "tractor"), ("astronomer", "observatory", "telescope"),
        ("miner", "mine", "pickaxe"), ("hairdresser", "salon", "scissors"), ("judge", "courtroom", "gavel"),
        ("baker", "bakery", "oven"), ("surgeon", "hospital", "scalpel"), ("mechanic", "garage", "wrench"),
        ("blacksmith", "forge", "anvil"),
    )),
}


def _relations() -> dict[str, tuple[Pair, ...]]:
    """Relation -> (head, tail, associate): the associate is the head's tail by the domain's other relation."""
    out: dict[str, tuple[Pair, ...]] = {}
    for (first, second), rows in DOMAINS.values():
        out[first] = tuple((h, a, b) for h, a, b in rows)
        out[second] = tuple((h, b, a) for h, a, b in rows)
    return out


RELATIONS: dict[str, tuple[Pair, ...]] = _relations()

#: Nonce relations: name -> sentence template of a stated fact ("{h}" the head, "{t}" the tail).
NONCE_RELATIONS: dict[str, str] = {
    "young_of": "a {h} is the young of a {t}",
    "lives_in": "a {h} lives in a {t}",
    "eats": "a {h} eats {t}s",
    "part_of": "a {h} is a part of a {t}",
    "made_of": "a {h} is made of {t}",
    "works_in": "a {h} works in a {t}",
}

#: Pronounceable nonce words (CVC / CVCV), none an English word of the bank.
NONCE_WORDS: tuple[str, ...] = (
    "blick", "dax", "wug", "fep", "toma", "zorp", "kiv", "pell", "mup", "gazzer", "lorp", "tiv", "nuv", "sprock",
    "jeck", "vorn", "quib", "plim", "dorb", "rellet", "fim", "snoop", "gorm", "yuzz", "teeb", "kloff", "mave",
    "zib", "grell", "wopp", "naff", "cheb", "prot", "hask", "bibber", "lunt", "moke", "vek", "slaff", "drin",
)
