"""Word banks of the episodic-memory probe: people, actions, places.

Every entry is unique within its bank, and no entry of one bank is an entry of
another (the tests check both), so a gen answer names at most one bank entry.
Actions are (past form, base form) pairs: "bought a kite" for the list and the
"what" answer, "buy a kite" for "When did Ada buy a kite?".
"""

from __future__ import annotations

NAMES: tuple[str, ...] = (
    "Ada", "Ben", "Chloe", "Dev", "Elena", "Felix", "Grace", "Hugo", "Iris", "Jonas", "Kira", "Liam",
    "Maya", "Nora", "Omar", "Paula", "Quinn", "Rosa", "Sam", "Tara", "Umar", "Vera", "Wes", "Yara",
    "Zoe", "Anton", "Bella", "Carlos", "Dina", "Emil",
)

ACTIONS: tuple[tuple[str, str], ...] = (
    ("bought a kite", "buy a kite"),
    ("painted a fence", "paint a fence"),
    ("lost an umbrella", "lose an umbrella"),
    ("baked a cake", "bake a cake"),
    ("fixed a bicycle", "fix a bicycle"),
    ("wrote a letter", "write a letter"),
    ("met an old friend", "meet an old friend"),
    ("found a wallet", "find a wallet"),
    ("sold a piano", "sell a piano"),
    ("planted a tree", "plant a tree"),
    ("played chess", "play chess"),
    ("read a poem aloud", "read a poem aloud"),
    ("took a photograph", "take a photograph"),
    ("sang a song", "sing a song"),
    ("broke a mirror", "break a mirror"),
    ("adopted a kitten", "adopt a kitten"),
    ("won a medal", "win a medal"),
    ("borrowed a ladder", "borrow a ladder"),
    ("cooked a curry", "cook a curry"),
    ("climbed a wall", "climb a wall"),
    ("rented a boat", "rent a boat"),
    ("watched a comet", "watch a comet"),
    ("repaired a clock", "repair a clock"),
    ("knitted a scarf", "knit a scarf"),
    ("caught a fish", "catch a fish"),
    ("signed a contract", "sign a contract"),
    ("drew a map", "draw a map"),
    ("washed a car", "wash a car"),
    ("carved a spoon", "carve a spoon"),
    ("delivered a parcel", "deliver a parcel"),
    ("tuned a guitar", "tune a guitar"),
    ("flew a drone", "fly a drone"),
    ("spilled some coffee", "spill some coffee"),
    ("gave a speech", "give a speech"),
    ("counted the birds", "count the birds"),
    ("hid a key", "hide a key"),
    ("moved a sofa", "move a sofa"),
    ("printed a poster", "print a poster"),
    ("returned a book", "return a book"),
    ("tasted a cheese", "taste a cheese"),
)

PLACES: tuple[str, ...] = (
    "the harbour", "the library", "the bakery", "the station", "the museum", "the park", "the market",
    "the school", "the garage", "the beach", "the cinema", "the hospital", "the zoo", "the bridge",
    "the farm", "the church", "the stadium", "the airport", "the theatre", "the garden", "the post office",
    "the hotel", "the castle", "the lake", "the bank", "the pharmacy", "the square", "the forest",
    "the gym", "the cafe",
)

MONTHS: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
#: Days per month of a common (non-leap) year: the lists name no year.
MONTH_DAYS: tuple[int, ...] = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
