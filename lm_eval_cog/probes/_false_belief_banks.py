"""Word banks of the false-belief probe: agents, objects, containers, rooms.

Every container starts with a consonant (the story writes "a box") and is one lower-case
word; the words of a bank are distinct, so an answer names at most one container.
"""

from __future__ import annotations

NAMES = (
    "Sally", "Anne", "Tom", "Lucy", "Omar", "Mia", "Jack", "Nora", "Liam", "Emma",
    "Hugo", "Ruby", "Ben", "Zoe", "Ivan", "Chloe", "Noah", "Ella", "Sam", "Priya",
)
OBJECTS = (
    "ball", "marble", "key", "coin", "ring", "watch", "pencil", "scarf", "cookie", "sock",
    "banana", "glove", "lemon", "ticket", "spoon", "puzzle",
)
CONTAINERS = (
    "basket", "box", "drawer", "cupboard", "suitcase", "bucket", "crate", "jar", "bag", "bin",
    "chest", "trunk", "tub", "cabinet", "hamper", "pot",
)
ROOMS = (
    "kitchen", "garden", "hallway", "bedroom", "office", "garage", "cellar", "attic", "classroom",
    "playroom", "library", "porch", "workshop", "studio",
)
