"""Relation bank of the analogy probe: hand-written word pairs and nonce relation templates.

``RELATIONS``: relation -> pairs ``(head, tail, associate)``. ``head : tail`` is an
instance of the relation; ``associate`` is a word strongly associated with ``head``
by *another* relation (a thematic / co-occurrence link: kitten - milk, Spain -
Barcelona), the associative distractor of Gentner's relational-shift studies. The
pairs of one relation were chosen so that no head also fits another pair's tail by
that relation (no "wheel : bicycle" beside "pedal : bicycle"; no "rabbit : burrow"
beside "fox : den"; no "bird : nest" where bees and ants nest too; no "apple : fruit"
where an apple is also a tree), and no associate fits its head by the relation: in an item
built from one relation only the key completes the analogy. The tests check what a
program can (every head, tail and associate unique within its relation, associates
never a tail of the relation); the real-world exclusivity is this hand curation.
"""

from __future__ import annotations

Pair = tuple[str, str, str]

RELATIONS: dict[str, tuple[Pair, ...]] = {
    # young animal : adult animal
    "young_adult": (
        ("puppy", "dog", "bone"), ("kitten", "cat", "yarn"), ("calf", "cow", "milk"), ("foal", "horse", "saddle"),
        ("lamb", "sheep", "wool"), ("piglet", "pig", "mud"), ("duckling", "duck", "pond"), ("tadpole", "frog", "tail"),
        ("cub", "bear", "honey"), ("joey", "kangaroo", "pouch"),
    ),
    # animal : its home
    "animal_home": (
        ("bee", "hive", "honey"), ("rabbit", "hutch", "lettuce"), ("dog", "kennel", "puppy"), ("horse", "stable", "foal"),
        ("pig", "sty", "piglet"), ("spider", "web", "fly"), ("fox", "den", "forest"), ("ant", "anthill", "picnic"),
        ("chicken", "coop", "egg"),
    ),
    # part : whole
    "part_whole": (
        ("petal", "flower", "bee"), ("page", "book", "read"), ("wheel", "car", "round"), ("branch", "tree", "bird"),
        ("finger", "hand", "ring"), ("toe", "foot", "sock"), ("string", "guitar", "music"), ("lens", "camera", "photo"),
    ),
    # member : category
    "member_category": (
        ("sparrow", "bird", "seed"), ("salmon", "fish", "river"), ("oak", "tree", "acorn"),
        ("violin", "instrument", "bow"), ("rose", "flower", "thorn"), ("strawberry", "fruit", "cream"),
        ("carrot", "vegetable", "rabbit"), ("copper", "metal", "wire"), ("Mars", "planet", "red"),
    ),
    # word : its antonym
    "antonym": (
        ("hot", "cold", "fire"), ("tall", "short", "giraffe"), ("open", "closed", "door"), ("early", "late", "morning"),
        ("heavy", "light", "elephant"), ("full", "empty", "cup"), ("wet", "dry", "rain"), ("loud", "quiet", "drum"),
        ("rich", "poor", "money"), ("fast", "slow", "cheetah"),
    ),
    # tool : the action it performs
    "tool_action": (
        ("knife", "cut", "fork"), ("pen", "write", "paper"), ("broom", "sweep", "dust"), ("shovel", "dig", "sand"),
        ("needle", "sew", "thread"), ("spoon", "stir", "soup"), ("ladder", "climb", "roof"), ("key", "unlock", "door"),
    ),
    # worker : workplace
    "worker_place": (
        ("chef", "kitchen", "recipe"), ("pilot", "cockpit", "uniform"), ("farmer", "farm", "tractor"),
        ("judge", "courtroom", "verdict"), ("nurse", "hospital", "patient"), ("librarian", "library", "silence"),
        ("teacher", "classroom", "student"), ("miner", "mine", "helmet"),
    ),
    # country : capital city (associate: another famous city of the country)
    "country_capital": (
        ("France", "Paris", "Marseille"), ("Japan", "Tokyo", "Osaka"), ("Italy", "Rome", "Milan"),
        ("Egypt", "Cairo", "Alexandria"), ("Spain", "Madrid", "Barcelona"), ("Kenya", "Nairobi", "Mombasa"),
        ("Australia", "Canberra", "Sydney"), ("Turkey", "Ankara", "Istanbul"), ("Canada", "Ottawa", "Toronto"),
        ("Morocco", "Rabat", "Casablanca"),
    ),
}

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
