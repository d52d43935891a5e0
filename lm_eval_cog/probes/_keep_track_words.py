"""Word bank of the keep-track probe: six categories of twelve unambiguous words.

No word belongs to two categories under any common reading: no "orange", "lime",
"turkey", "file", and no fruit or animal that names a colour too ("cherry", "lemon",
"plum", "peach", "apricot", "camel") or a fruit that names an animal ("kiwi"). No word
occurs twice in the bank, so an answer names one category's word at most.
"""

from __future__ import annotations

#: (plural, singular, words) of each category.
CATEGORIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("animals", "animal", ("dog", "horse", "tiger", "rabbit", "eagle", "shark", "zebra", "mouse", "wolf", "sheep", "goat", "frog")),
    ("fruits", "fruit", ("apple", "banana", "coconut", "grape", "mango", "papaya", "pear", "fig", "guava", "melon", "pineapple", "lychee")),
    ("colours", "colour", ("red", "blue", "green", "yellow", "purple", "brown", "pink", "grey", "black", "white", "beige", "crimson")),
    ("countries", "country", ("France", "Japan", "Brazil", "Egypt", "Canada", "Mexico", "India", "Norway", "Kenya", "Peru", "Spain", "Chile")),
    ("tools", "tool", ("hammer", "wrench", "saw", "drill", "chisel", "shovel", "pliers", "rake", "axe", "screwdriver", "trowel", "crowbar")),
    ("musical instruments", "musical instrument", ("violin", "piano", "guitar", "flute", "trumpet", "drum", "cello", "harp", "oboe", "clarinet", "banjo", "trombone")),
)
