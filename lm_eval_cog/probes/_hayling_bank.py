"""Sentence frames of the ``hayling`` probe: high-cloze sentences with their endings.

The frames are ours, written for this probe and modelled on the kind of item the
Hayling Sentence Completion Test uses (Burgess & Shallice, 1996, 1997): a short common
English sentence whose last word is strongly predicted by the rest (high cloze
probability, as in the cloze norms of Bloom & Fischler, 1980). None is an item of
the published, copyrighted test. Each frame is
``Frame(text, prepotent, related, domains)``:

``text``
    The sentence with one blank ``___``, always its last word.
``prepotent``
    The completion nearly everyone gives: the key of Hayling A (initiation) and the
    lure of Hayling B (suppression).
``related``
    A word connected to the sentence or to its ending that is still no sensible
    completion (a "somewhat connected" answer, the Hayling B category-B error): a
    wrong option in both conditions.
``domains``
    Every domain of :data:`DOMAINS` the frame touches: those of its two words, of the
    things its sentence names and of the words that could sensibly fill its blank
    (e.g. ``sport`` for "The cat chased the ___": a cat chases a ball).

There is no bank of unrelated words: a frame's unrelated option is a word of *another*
frame (:mod:`lm_eval_cog.probes.hayling` says why: a bank of its own made its words the
suppression keys and nothing else), lent only where the two frames share no domain
(:func:`unconnected`): "He mailed the letter without a ___." (writing, people, money) is
never offered "wallet" or "pilot". Hence the bank's rules, checked by the tests: every
word belongs to one frame only (no text is two frames' word, so each is lent as often as
any other); a frame's two words differ in length (the key's length rank never ties);
and where the blank follows "a", both words start with a consonant, as must a word lent
there, so the article never tells the answer; no frame has "an ___".
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

BLANK = "___"

#: The domains a frame can touch (see :class:`Frame`), coarse enough that a frame's
#: associations fall into a handful, fine enough that most frames share none.
DOMAINS: tuple[str, ...] = (
    "animal",     # animals, their parts, homes and sounds
    "food",       # food and drink
    "kitchen",    # tableware, kitchen, cooking
    "home",       # rooms, furniture, fittings, garden
    "body",       # parts of the body, bodily acts
    "health",     # illness, medicine, doctors
    "clothing",   # garments, shoes, jewellery, cosmetics
    "weather",    # rain, snow, cold, heat, seasons
    "sky",        # sun, moon, stars, space
    "land",       # landscape, waters, plants, soil
    "people",     # people by role or kin
    "transport",  # vehicles, travel, stations
    "tools",      # hand tools, hardware, sewing
    "writing",    # letters, books, reading, school
    "arts",       # music, song, painting, stage
    "time",       # clocks, calendar, times of day
    "money",      # money, paying, valuables
    "royalty",    # kings and queens, castles, fairy tales
    "fire",       # fire, light, burning
    "sport",      # games, balls, toys, play
    "festivity",  # birthdays, weddings, Christmas, parties
    "farm",       # farms, farm animals, riding
    "crime",      # crime, weapons, fighting
    "number",     # numbers, counting, sums
    "mind",       # thought, speech, virtues, sayings
)


class Frame(NamedTuple):
    text: str
    prepotent: str
    related: str
    domains: tuple[str, ...]


_STOP = frozenset("the and her his its their our your you has had was were are with from for not into".split())


@cache
def sentence_words(frame: Frame) -> frozenset[str]:
    """The content words of ``frame``'s sentence (three letters or more, no function word)."""
    words = re.findall(r"[a-z]+", frame.text.lower())
    return frozenset(w for w in words if len(w) >= 3 and w not in _STOP)


def named_in(word: str, frame: Frame) -> bool:
    """Whether ``frame``'s sentence names ``word`` or a word of the same stem ("tree" in
    "trees", "sneeze" in "sneezing" by their shared start)."""
    return any(word == w or w.startswith(word) or word.startswith(w) or word[:5] == w[:5]
               for w in sentence_words(frame))


def unconnected(frame: Frame, other: Frame) -> bool:
    """Whether ``other``'s words may stand as unrelated words in ``frame`` (and, the rule
    being symmetric, ``frame``'s in ``other``): the two frames share no domain, and
    neither sentence names a word of the other frame."""
    return (
        other != frame
        and not set(frame.domains) & set(other.domains)
        and not any(named_in(w, frame) for w in (other.prepotent, other.related))
        and not any(named_in(w, other) for w in (frame.prepotent, frame.related))
    )


_F = Frame
FRAMES: tuple[Frame, ...] = (
    # Everyday events.
    _F("He mailed the letter without a ___.", "stamp", "postman", ("writing", "people", "money")),
    _F("The cat chased the ___.", "mouse", "cheese", ("animal", "food", "sport")),
    _F("Before going to bed, she brushed her ___.", "teeth", "toothpaste",
       ("body", "health", "home", "animal", "clothing")),
    _F("The sun rises in the ___.", "east", "ray", ("sky", "time", "weather")),
    _F("He unlocked the door with his ___.", "key", "keyhole", ("home", "tools", "body")),
    _F("In the morning, she drank a cup of hot ___.", "coffee", "mug", ("food", "kitchen", "time")),
    _F("The ship sank to the bottom of the ___.", "sea", "sailor", ("land", "transport", "people")),
    _F("She blew her nose into a ___.", "tissue", "flu", ("health", "body", "clothing", "home")),
    _F("High in the tree, the bird built a ___.", "nest", "feather", ("animal", "land", "home")),
    _F("He was so thirsty that he drank a whole glass of ___.", "water", "well",
       ("food", "kitchen", "weather", "land", "home")),
    _F("The children went to school on the yellow ___.", "bus", "driver", ("transport", "people", "writing")),
    _F("She cut the birthday cake with a ___.", "knife", "candle", ("kitchen", "food", "festivity", "fire", "tools")),
    _F("At the end of the long day, the tired man went to ___.", "bed", "mattress", ("home", "time", "health")),
    _F("The happy dog wagged its ___.", "tail", "kennel", ("animal", "body", "home")),
    _F("To hang the picture on the wall, he hammered in a ___.", "nail", "frame", ("tools", "home", "arts")),
    _F("When water gets very cold, it turns into ___.", "ice", "winter", ("weather", "land", "food")),
    _F("She combed her hair and looked at herself in the ___.", "mirror", "blush", ("home", "body", "clothing")),
    _F("He signed his name with a ___.", "pen", "paper", ("writing", "tools")),
    _F("Every morning, the farmer milked the ___.", "cow", "stool", ("farm", "animal", "food", "time", "home")),
    _F("Bees collect nectar to make ___.", "honey", "flowers", ("food", "animal", "land")),
    _F("The astronaut flew to the ___.", "moon", "helmet", ("sky", "transport", "clothing", "people")),
    _F("When it started to rain, she opened her ___.", "umbrella", "puddle",
       ("weather", "clothing", "home", "body", "writing")),
    _F("The king wore a golden ___.", "crown", "coronation", ("royalty", "clothing", "money")),
    _F("In the corner of the room, the spider spun a ___.", "web", "beetle", ("animal", "home")),
    _F("She paid for the groceries with her credit ___.", "card", "wallet", ("money", "food")),
    _F("Firefighters rushed to put out the ___.", "fire", "siren", ("fire", "transport", "people")),
    _F("He checked the time on his ___.", "watch", "hour", ("time", "clothing")),
    _F("The mouse was caught in a ___.", "trap", "rat", ("animal", "tools", "home", "crime")),
    _F("She screamed when she was stung by a ___.", "bee", "buzz", ("animal", "health", "land")),
    _F("The opposite of black is ___.", "white", "crow", ("animal",)),
    _F("The monkey peeled and ate a ___.", "banana", "plantation", ("food", "animal", "land", "farm")),
    _F("The pirates dug up the buried ___.", "treasure", "parrot",
       ("money", "animal", "crime", "tools", "transport", "land")),
    _F("At the wedding, the bride wore a white ___.", "dress", "vow", ("clothing", "festivity", "people")),
    _F("The students listened carefully to the ___.", "teacher", "desk", ("people", "writing", "arts", "mind")),
    _F("He was so hungry that he could eat a ___.", "horse", "saddle", ("animal", "food", "farm")),
    _F("There is no use crying over spilled ___.", "milk", "napkin", ("food", "body", "kitchen")),
    _F("The early bird catches the ___.", "worm", "alarm", ("animal", "time")),
    _F("Two heads are better than ___.", "one", "hats", ("number", "body", "clothing", "mind")),
    _F("After breakfast, she put the milk back in the ___.", "fridge", "udder",
       ("kitchen", "food", "farm", "animal", "time")),
    _F("He went to the bakery to buy a loaf of ___.", "bread", "jam", ("food", "kitchen", "money")),
    _F("The goldfish swam around in its glass ___.", "bowl", "gills", ("animal", "kitchen", "home")),
    _F("She turned on the light by flipping the ___.", "switch", "watt", ("home", "fire", "tools")),
    _F("He dug a deep hole in the garden with a ___.", "shovel", "soil", ("tools", "land", "home")),
    _F("The ship stopped, and the sailor dropped the ___.", "anchor", "dock",
       ("transport", "people", "animal", "land")),
    _F("The chef cooked dinner in the ___.", "kitchen", "recipe", ("kitchen", "food", "people", "home", "time")),
    _F("After the snowfall, the children built a ___.", "snowman", "carrot", ("weather", "food", "sport", "home")),
    _F("The doctor listened to his heart with a ___.", "stethoscope", "pulse", ("health", "body", "people")),
    _F("The queen sat down on her ___.", "throne", "realm", ("royalty", "home", "people")),
    _F("She swept the kitchen floor with a ___.", "broom", "dust", ("home", "tools", "kitchen")),
    _F("The moon shines brightly at ___.", "night", "noon", ("sky", "time")),
    _F("The baby slept peacefully in its ___.", "crib", "lullaby", ("home", "arts", "people")),
    _F("She sewed on the button with a needle and ___.", "thread", "haystack", ("tools", "clothing", "farm")),
    _F("Please pass the salt and ___.", "pepper", "mill", ("food", "kitchen")),
    _F("He spread the warm toast with ___.", "butter", "crumb", ("food", "kitchen")),
    _F("The train slowly pulled into the ___.", "station", "ticket", ("transport", "money")),
    _F("The plane landed safely at the ___.", "airport", "pilot", ("transport", "people", "sky")),
    _F("A stitch in time saves ___.", "nine", "needle", ("number", "tools", "clothing", "time")),
    _F("He looked up the word in the ___.", "dictionary", "vowel", ("writing", "mind")),
    _F("Out of sight, out of ___.", "mind", "eyelid", ("mind", "body")),
    _F("At the circus, the children laughed at the funny ___.", "clown", "tent",
       ("people", "arts", "animal", "festivity")),
    _F("She locked her jewels in the ___.", "safe", "robber", ("money", "crime", "home", "people", "time")),
    _F("He blew out the candles on his birthday ___.", "cake", "balloon", ("festivity", "food", "fire")),
    _F("The ball bounced over the garden ___.", "fence", "gardener", ("home", "land", "sport", "people")),
    _F("He put on his socks and ___.", "shoes", "feet", ("clothing", "body")),
    _F("The ice cream melted in the hot ___.", "sun", "cone", ("sky", "weather", "food", "kitchen")),
    _F("The hen sat on her ___.", "eggs", "rooster", ("farm", "animal", "food")),
    _F("The knight wore a shiny suit of ___.", "armor", "duel", ("crime", "clothing", "royalty")),
    # A cat sits on anything: the frame lends and takes words only among abstract things.
    _F("The cat sat on the ___.", "mat", "purr",
       ("animal", "home", "land", "clothing", "kitchen", "tools", "transport", "food", "writing", "royalty")),
    _F("He poured milk on his breakfast ___.", "cereal", "dairy", ("food", "kitchen", "farm", "time")),
    _F("The burglar climbed in through the open ___.", "window", "glass", ("home", "crime", "people")),
    _F("In autumn, the tree lost all its ___.", "leaves", "rake", ("land", "weather", "tools", "time")),
    _F("She looked up at the stars in the night ___.", "sky", "telescope", ("sky", "time")),
    _F("He kept sneezing because he had a ___.", "cold", "pollen", ("health", "body", "land", "weather")),
    _F("Two plus two equals ___.", "four", "sum", ("number", "writing")),
    _F("The baker put the bread in the ___.", "oven", "dough", ("kitchen", "food", "people")),
    _F("On windy days, the boy liked to fly his ___.", "kite", "string", ("sport", "weather", "sky", "transport")),
    _F("The frog jumped into the ___.", "pond", "tadpole", ("animal", "land", "home", "kitchen")),
    _F("The carpenter cut the plank with a ___.", "saw", "splinter", ("tools", "people", "home")),
    _F("The visitor knocked on the front ___.", "door", "doorbell", ("home", "people")),
    _F("The teacher wrote on the board with a piece of ___.", "chalk", "eraser", ("writing", "people", "tools")),
    _F("The camel walked for days across the ___.", "desert", "sweat", ("land", "animal", "time", "weather", "body")),
    _F("To see in the dark, he switched on his ___.", "flashlight", "battery", ("fire", "home", "tools")),
    _F("The lion is the king of the ___.", "jungle", "zebra", ("animal", "land", "royalty")),
    _F("He went fishing and caught a big ___.", "fish", "rod", ("animal", "food", "sport", "land", "tools")),
    _F("He parked the car in the ___.", "garage", "tire", ("transport", "home", "tools", "time")),
    _F("She stirred her coffee with a ___.", "spoon", "sip", ("kitchen", "food")),
    _F("The wedding guests cheered for the bride and ___.", "groom", "veil", ("festivity", "people", "clothing")),
    _F("To reach the roof, he climbed up a ___.", "ladder", "rung", ("tools", "home", "land")),
    _F("In autumn, the squirrel gathered ___.", "nuts", "burrow", ("animal", "food", "land", "weather", "time")),
    _F("The ambulance took the injured man to the ___.", "hospital", "splint", ("health", "transport", "people")),
    _F("To light the fire, he struck a ___.", "match", "wick", ("fire", "tools", "home")),
    _F("The gardener cut the grass with a lawn ___.", "mower", "weed", ("tools", "land", "people", "home")),
    _F("She cut the paper with a pair of ___.", "scissors", "glue", ("tools", "writing")),
    _F("At the end of the match, the referee blew his ___.", "whistle", "goal", ("sport", "people")),
    _F("The baby drank her milk from a ___.", "bottle", "bib", ("kitchen", "food", "people", "clothing")),
    _F("He put the wedding ring on her ___.", "finger", "gem", ("body", "festivity", "clothing", "money")),
    _F("The goalkeeper dived and caught the ___.", "ball", "goalpost", ("sport", "people")),
    _F("The dentist asked the boy to open his ___.", "mouth", "filling", ("body", "health", "people", "writing")),
    _F("For the pain, the doctor gave him a ___.", "pill", "pharmacy", ("health", "people", "body")),
    _F("To hide his face, the robber wore a ___.", "mask", "mugshot", ("crime", "clothing", "body", "people")),
    _F("The tailor measured him for a new ___.", "suit", "thimble", ("clothing", "tools", "people")),
    _F("The volcano erupted and poured out red hot ___.", "lava", "crater", ("land", "fire")),
    _F("The farmer planted seeds in his ___.", "field", "hoe", ("farm", "land", "food", "home", "tools")),
    _F("In the fairy tale, the prince kissed the sleeping ___.", "princess", "castle", ("royalty", "people", "animal")),
    _F("The eagle spread its ___.", "wings", "beak", ("animal", "sky")),
    _F("The choir sang a beautiful ___.", "song", "stage", ("arts", "people")),
    _F("The captain stood at the wheel and steered the ___.", "ship", "map", ("transport", "people", "land")),
    _F("The artist painted the picture with a ___.", "brush", "canvas", ("arts", "tools", "people")),
    _F("The shepherd counted his ___.", "sheep", "wool", ("farm", "animal", "clothing", "number", "people")),
    _F("The spy sent his boss a secret ___.", "message", "agent", ("writing", "people", "crime")),
    _F("The singer stepped up to the ___.", "microphone", "applause", ("arts", "people", "home")),
    _F("He paid for the coffee and left the waiter a ___.", "tip", "menu", ("money", "food", "people", "writing")),
    _F("The children opened their presents under the Christmas ___.", "tree", "reindeer",
       ("festivity", "land", "animal", "people")),
    _F("On Christmas Eve, Santa Claus came down the ___.", "chimney", "sleigh",
       ("festivity", "home", "transport", "people", "fire")),
    _F("The students who knew the answer raised their ___.", "hands", "quiz", ("body", "writing", "mind", "people")),
    _F("She always wears her heart on her ___.", "sleeve", "valentine", ("clothing", "body", "festivity", "mind")),
    # Nursery rhymes, fairy tales and sayings: the most predictable endings there are.
    _F("Hickory dickory dock, the mouse ran up the ___.", "clock", "tick", ("time", "animal", "home")),
    _F("Old MacDonald had a ___.", "farm", "cowbell", ("farm", "animal", "arts")),
    _F("At the ball, Cinderella lost her glass ___.", "slipper", "prince",
       ("clothing", "royalty", "festivity", "people")),
    _F("A bird in the hand is worth two in the ___.", "bush", "thumb", ("land", "animal", "body", "number")),
    _F("The quick brown fox jumps over the lazy ___.", "dog", "bone", ("animal", "body")),
    _F("Snow White lived with the seven ___.", "dwarfs", "apple", ("royalty", "food", "people", "number")),
    _F("Little Red Riding Hood met the big bad ___.", "wolf", "grandmother",
       ("animal", "royalty", "people", "clothing")),
    _F("The wolf huffed and puffed at the house of the three little ___.", "pigs", "bricks",
       ("animal", "farm", "home", "royalty", "number")),
    _F("Humpty Dumpty sat on a ___.", "wall", "tumble", ("home", "arts", "food", "royalty", "land")),
    _F("Jack and Jill went up the ___.", "hill", "bucket", ("land", "home", "arts", "people")),
    _F("Twinkle, twinkle, little ___.", "star", "nursery", ("sky", "arts", "home")),
    _F("Practice makes ___.", "perfect", "piano", ("arts", "mind", "sport")),
    _F("The grass is always greener on the other ___.", "side", "neighbor", ("land", "people", "home", "mind")),
    _F("Curiosity killed the ___.", "cat", "catnip", ("animal", "mind", "land")),
    _F("Every cloud has a silver ___.", "lining", "rain", ("weather", "sky", "money", "clothing")),
    _F("A picture is worth a thousand ___.", "words", "brushes", ("writing", "arts", "number", "money", "mind")),
    _F("The pen is mightier than the ___.", "sword", "ink", ("crime", "writing", "mind")),
    _F("All that glitters is not ___.", "gold", "goldsmith", ("money", "clothing", "people")),
    _F("Beauty is in the eye of the ___.", "beholder", "perfume", ("people", "body", "clothing", "mind", "arts")),
    _F("Don't put all your eggs in one ___.", "basket", "yolk", ("food", "farm", "kitchen", "money")),
    _F("It is raining cats and ___.", "dogs", "drizzle", ("animal", "weather")),
    _F("Once upon a ___.", "time", "storybook", ("time", "writing", "royalty")),
    _F("Necessity is the mother of ___.", "invention", "father", ("mind", "people")),
    _F("Laughter is the best ___.", "medicine", "doctor", ("health", "people", "mind")),
    _F("Honesty is the best ___.", "policy", "liar", ("mind", "people")),
    _F("Time flies when you are having ___.", "fun", "hourglass", ("time", "mind", "sport")),
    _F("Money does not grow on ___.", "trees", "pennies", ("money", "land")),
    _F("You cannot judge a book by its ___.", "cover", "bookmark", ("writing", "mind")),
    _F("He killed two birds with one ___.", "stone", "wing", ("land", "animal", "crime", "number")),
    _F("She hit the nail on the ___.", "head", "hammer", ("body", "tools", "mind")),
    _F("Every dog has its ___.", "day", "calendar", ("time", "animal")),
)
