"""Relation bank of the analogy probe: hand-written word triples and nonce relation templates.

``DOMAINS``: domain -> its two relations and rows ``(head, tail by the first relation, tail
by the second)``: every head has a partner by each relation of its domain (dog: puppy, bark;
France: Paris, French). ``RELATIONS``, derived from it: relation -> pairs ``(head, tail,
associate)``, where ``head : tail`` is an instance of the relation and ``associate`` is the
head's partner by the *other* relation of its domain (cat -> meow beside cat -> kitten;
Japan -> yen beside Japan -> Tokyo): a word strongly linked to the head, but not by the
relation the analogy asks for, the associative distractor of Gentner's relational-shift
studies. As every associate is itself a tail of another relation, the words that serve as
lures serve as keys just as often, so no option's text tells a lure from a key.

The rows were chosen so that within a relation no head also fits another row's tail (no
"owl : chick" beside "chicken : chick"; no "teacher : chalk" where painters use chalk too;
no two countries of one currency): in an item built from one relation only the key
completes the analogy. No tail shares its head's first letter, and no tail is derived from its
head (version 3; issue 28: "Sweden : Swedish", "duck : duckling", "baker : bakery" let the option
sharing the longest prefix with C score 0.47 on semantic controls): spelling cannot pair a word
with its head. The tests check what a program can (every head and tail unique
within its domain, associates never tails of the analogy's relation); the real-world
exclusivity is this hand curation.
"""

from __future__ import annotations

Pair = tuple[str, str, str]

#: Domain -> ((first relation, second relation), rows (head, first tail, second tail)).
DOMAINS: dict[str, tuple[tuple[str, str], tuple[Pair, ...]]] = {
    # adult animal : its young, and : the sound it makes
    "animals": (("young", "sound"), (
        ("dog", "puppy", "bark"), ("cat", "kitten", "meow"), ("horse", "foal", "neigh"), ("sheep", "lamb", "baa"),
        ("frog", "tadpole", "croak"), ("lion", "cub", "roar"), ("goat", "kid", "bleat"),
        ("elephant", "calf", "trumpet"),
    )),
    # country : its capital, and : its currency
    "countries": (("capital", "currency"), (
        ("Japan", "Tokyo", "yen"), ("Poland", "Warsaw", "zloty"), ("Hungary", "Budapest", "forint"),
        ("Turkey", "Ankara", "lira"), ("China", "Beijing", "yuan"), ("Thailand", "Bangkok", "baht"),
        ("Switzerland", "Bern", "franc"), ("Vietnam", "Hanoi", "dong"), ("Norway", "Oslo", "krone"),
        ("Egypt", "Cairo", "pound"), ("Peru", "Lima", "sol"), ("Kenya", "Nairobi", "shilling"),
    )),
    # worker : workplace, and : characteristic tool
    "workers": (("workplace", "tool"), (
        ("painter", "studio", "brush"), ("astronomer", "observatory", "telescope"),
        ("hairdresser", "salon", "scissors"), ("judge", "courtroom", "gavel"), ("mechanic", "garage", "wrench"),
        ("blacksmith", "forge", "anvil"), ("lumberjack", "forest", "axe"), ("waiter", "restaurant", "tray"),
        ("soldier", "barracks", "rifle"),
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

#: Nonce relations: name -> two sentence templates of a stated fact ("{h}" the head, "{t}" the tail),
#: the head written first and the tail written first, so that which word comes first in a fact
#: does not tell its role. Every word is written as given (no plural "s"), so every word of a fact
#: is named in the prompt as it is in the options.
NONCE_RELATIONS: dict[str, tuple[str, str]] = {
    "young_of": ("a {h} is the young of a {t}", "a {t} has a {h} as its young"),
    "lives_in": ("a {h} lives in a {t}", "a {t} is the home of a {h}"),
    "eats": ("a {h} feeds on {t}", "{t} is the food of a {h}"),
    "part_of": ("a {h} is a part of a {t}", "a {t} has a {h} as one of its parts"),
    "made_of": ("a {h} is made of {t}", "{t} is what a {h} is made of"),
    "works_in": ("a {h} works in a {t}", "a {t} is where a {h} works"),
}

#: Pronounceable nonce words (CVC / CVCV), none an English word of the bank.
NONCE_WORDS: tuple[str, ...] = (
    "blick", "dax", "wug", "fep", "toma", "zorp", "kiv", "pell", "mup", "gazzer", "lorp", "tiv", "nuv", "sprock",
    "jeck", "vorn", "quib", "plim", "dorb", "rellet", "fim", "snoop", "gorm", "yuzz", "teeb", "kloff", "mave",
    "zib", "grell", "wopp", "naff", "cheb", "prot", "hask", "bibber", "lunt", "moke", "vek", "slaff", "drin",
)
