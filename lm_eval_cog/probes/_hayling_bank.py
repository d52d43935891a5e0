"""Sentence frames of the ``hayling`` probe: high-cloze sentences with their endings.

The frames are ours, written for this probe and modelled on the kind of item the
Hayling Sentence Completion Test uses (Burgess & Shallice, 1996, 1997): a short common
English sentence whose last word is strongly predicted by the rest (high cloze
probability, as in the cloze norms of Bloom & Fischler, 1980). None is an item of
the published, copyrighted test. Each frame is ``Frame(text, prepotent, domains)``:

``text``
    The sentence with one blank ``___``, always its last word.
``prepotent``
    The completion nearly everyone gives: the key of Hayling A (initiation) and the
    lure of Hayling B (suppression).
``domains``
    Every domain of :data:`DOMAINS` the frame touches: those of its ending, of the
    things its sentence names and of the words that could sensibly fill its blank
    (e.g. ``sport`` for "The cat chased the ___": a cat chases a ball).

There is no bank of wrong words: every wrong option is the ending of *another* frame
(:mod:`lm_eval_cog.probes.hayling` says why: words of a bank of their own, or "related"
words that are never an ending, give the key away by their text alone). Another frame's
ending is a *related* word where the two frames share a domain (:func:`connected`) and an
*unrelated* one where they share none (:func:`unconnected`): "He mailed the letter without a
___." (writing, people, money) may be offered "pen" as a related word, never as an unrelated one.
Both are then vetted at sentence level by ``scripts/hayling_vet_keys.py``. Hence the bank's
rules, checked by the tests: every ending belongs to one frame only; no sentence names its
own ending; and where the blank follows "a", the ending starts with a consonant, as must a word
lent there, so the article never tells the answer; no frame has "an ___". "The cat sat on the
___." (version 2) is gone: a cat sits on nearly anything, so no ending is nonsense there; so
are the frames whose ending makes sense nearly anywhere (time, day, side, one, head, wall, ...: the
sentence-level check let them stand as a wrong word in almost no other sentence, so they could
not be lent as often as the other endings), and those whose ending is spelled like a word of the
sentence (Jack and Jill ... hill; the stone of "two birds with one stone").
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


def _apart(frame: Frame, other: Frame) -> bool:
    """Whether the two frames differ and neither sentence names the other's ending."""
    return other != frame and not named_in(other.prepotent, frame) and not named_in(frame.prepotent, other)


def unconnected(frame: Frame, other: Frame) -> bool:
    """Whether ``other``'s ending may stand as an unrelated word in ``frame`` (and, the rule
    being symmetric, ``frame``'s in ``other``): the two frames share no domain, and
    neither sentence names the other's ending."""
    return _apart(frame, other) and not set(frame.domains) & set(other.domains)


def connected(frame: Frame, other: Frame) -> bool:
    """Whether ``other``'s ending may stand as a related word in ``frame``: the two frames share
    a domain (a word of the sentence's topic), and neither sentence names the other's ending."""
    return _apart(frame, other) and bool(set(frame.domains) & set(other.domains))


_F = Frame
FRAMES: tuple[Frame, ...] = (
    _F("He mailed the letter without a ___.", "stamp", ("writing", "people", "money")),
    _F("The cat chased the ___.", "mouse", ("animal", "food", "sport")),
    _F("Before going to bed, she brushed her ___.", "teeth", ("body", "health", "home", "animal", "clothing")),
    _F("The sun rises in the ___.", "east", ("sky", "time", "weather")),
    _F("He unlocked the door with his ___.", "key", ("home", "tools", "body")),
    _F("In the morning, she drank a cup of hot ___.", "coffee", ("food", "kitchen", "time")),
    _F("The ship sank to the bottom of the ___.", "sea", ("land", "transport", "people")),
    _F("She blew her nose into a ___.", "tissue", ("health", "body", "clothing", "home")),
    _F("High in the tree, the bird built a ___.", "nest", ("animal", "land", "home")),
    _F("He was so thirsty that he drank a whole glass of ___.", "water", ("food", "kitchen", "weather", "land", "home")),
    _F("The children went to school on the yellow ___.", "bus", ("transport", "people", "writing")),
    _F("She cut the birthday cake with a ___.", "knife", ("kitchen", "food", "festivity", "fire", "tools")),
    _F("At the end of the long day, the tired man went to ___.", "bed", ("home", "time", "health")),
    _F("The happy dog wagged its ___.", "tail", ("animal", "body", "home")),
    _F("To hang the picture on the wall, he hammered in a ___.", "nail", ("tools", "home", "arts")),
    _F("When water gets very cold, it turns into ___.", "ice", ("weather", "land", "food")),
    _F("She combed her hair and looked at herself in the ___.", "mirror", ("home", "body", "clothing")),
    _F("He signed his name with a ___.", "pen", ("writing", "tools")),
    _F("Every morning, the farmer milked the ___.", "cow", ("farm", "animal", "food", "time", "home")),
    _F("Bees collect nectar to make ___.", "honey", ("food", "animal", "land")),
    _F("The astronaut flew to the ___.", "moon", ("sky", "transport", "clothing", "people")),
    _F("When it started to rain, she opened her ___.", "umbrella", ("weather", "clothing", "home", "body", "writing")),
    _F("The king wore a golden ___.", "crown", ("royalty", "clothing", "money")),
    _F("In the corner of the room, the spider spun a ___.", "web", ("animal", "home")),
    _F("She paid for the groceries with her credit ___.", "card", ("money", "food")),
    _F("Firefighters rushed to put out the ___.", "fire", ("fire", "transport", "people")),
    _F("He checked the time on his ___.", "watch", ("time", "clothing")),
    _F("The mouse was caught in a ___.", "trap", ("animal", "tools", "home", "crime")),
    _F("She screamed when she was stung by a ___.", "bee", ("animal", "health", "land")),
    _F("The opposite of black is ___.", "white", ("animal",)),
    _F("The monkey peeled and ate a ___.", "banana", ("food", "animal", "land", "farm")),
    _F("The pirates dug up the buried ___.", "treasure", ("money", "animal", "crime", "tools", "transport", "land")),
    _F("At the wedding, the bride wore a white ___.", "dress", ("clothing", "festivity", "people")),
    _F("The students listened carefully to the ___.", "teacher", ("people", "writing", "arts", "mind")),
    _F("He was so hungry that he could eat a ___.", "horse", ("animal", "food", "farm")),
    _F("There is no use crying over spilled ___.", "milk", ("food", "body", "kitchen")),
    _F("The early bird catches the ___.", "worm", ("animal", "time")),
    _F("After breakfast, she put the milk back in the ___.", "fridge", ("kitchen", "food", "farm", "animal", "time")),
    _F("He went to the bakery to buy a loaf of ___.", "bread", ("food", "kitchen", "money")),
    _F("The goldfish swam around in its glass ___.", "bowl", ("animal", "kitchen", "home")),
    _F("She turned on the light by flipping the ___.", "switch", ("home", "fire", "tools")),
    _F("He dug a deep hole in the garden with a ___.", "shovel", ("tools", "land", "home")),
    _F("The ship stopped, and the sailor dropped the ___.", "anchor", ("transport", "people", "animal", "land")),
    _F("The chef cooked dinner in the ___.", "kitchen", ("kitchen", "food", "people", "home", "time")),
    _F("In the white winter garden, the children built a ___.", "snowman", ("weather", "food", "sport", "home")),
    _F("The doctor listened to his heart with a ___.", "stethoscope", ("health", "body", "people")),
    _F("The queen sat down on her ___.", "throne", ("royalty", "home", "people")),
    _F("She swept the kitchen floor with a ___.", "broom", ("home", "tools", "kitchen")),
    _F("The baby slept peacefully in its ___.", "crib", ("home", "arts", "people")),
    _F("She sewed on the button with a needle and ___.", "thread", ("tools", "clothing", "farm")),
    _F("Please pass the salt and ___.", "pepper", ("food", "kitchen")),
    _F("He spread the warm toast with ___.", "butter", ("food", "kitchen")),
    _F("The train slowly pulled into the ___.", "station", ("transport", "money")),
    _F("The plane landed safely at the ___.", "airport", ("transport", "people", "sky")),
    _F("A stitch in time saves ___.", "nine", ("number", "tools", "clothing", "time")),
    _F("He looked up the word in the ___.", "dictionary", ("writing", "mind")),
    _F("Out of sight, out of ___.", "mind", ("mind", "body")),
    _F("At the circus, the children laughed at the funny ___.", "clown", ("people", "arts", "animal", "festivity")),
    _F("She locked her jewels in the ___.", "safe", ("money", "crime", "home", "people", "time")),
    _F("He blew out the candles on his birthday ___.", "cake", ("festivity", "food", "fire")),
    _F("The ball bounced over the garden ___.", "fence", ("home", "land", "sport", "people")),
    _F("He put on his socks and ___.", "shoes", ("clothing", "body")),
    _F("The ice cream melted in the hot ___.", "sun", ("sky", "weather", "food", "kitchen")),
    _F("The hen sat on her ___.", "eggs", ("farm", "animal", "food")),
    _F("The knight wore a shiny suit of ___.", "armor", ("crime", "clothing", "royalty")),
    _F("He poured milk on his breakfast ___.", "cereal", ("food", "kitchen", "farm", "time")),
    _F("The burglar climbed in through the open ___.", "window", ("home", "crime", "people")),
    _F("In autumn, the tree lost all its ___.", "leaves", ("land", "weather", "tools", "time")),
    _F("She looked up at the stars in the night ___.", "sky", ("sky", "time")),
    _F("He kept sneezing because he had a ___.", "cold", ("health", "body", "land", "weather")),
    _F("Two plus two equals ___.", "four", ("number", "writing")),
    _F("The baker put the bread in the ___.", "oven", ("kitchen", "food", "people")),
    _F("On windy days, the boy liked to fly his ___.", "kite", ("sport", "weather", "sky", "transport")),
    _F("The frog jumped into the ___.", "pond", ("animal", "land", "home", "kitchen")),
    _F("The carpenter cut the plank with a ___.", "saw", ("tools", "people", "home")),
    _F("The visitor knocked on the front ___.", "door", ("home", "people")),
    _F("The teacher wrote on the board with a piece of ___.", "chalk", ("writing", "people", "tools")),
    _F("The camel walked for days across the ___.", "desert", ("land", "animal", "time", "weather", "body")),
    _F("To see in the dark, he switched on his ___.", "flashlight", ("fire", "home", "tools")),
    _F("The lion is the king of the ___.", "jungle", ("animal", "land", "royalty")),
    _F("He sat by the river with his rod and caught a big ___.", "fish", ("animal", "food", "sport", "land", "tools")),
    _F("He parked the car in the ___.", "garage", ("transport", "home", "tools", "time")),
    _F("She stirred her coffee with a ___.", "spoon", ("kitchen", "food")),
    _F("The wedding guests cheered for the bride and ___.", "groom", ("festivity", "people", "clothing")),
    _F("To reach the roof, he climbed up a ___.", "ladder", ("tools", "home", "land")),
    _F("In autumn, the squirrel gathered ___.", "nuts", ("animal", "food", "land", "weather", "time")),
    _F("The ambulance took the injured man to the ___.", "hospital", ("health", "transport", "people")),
    _F("To light the fire, he struck a ___.", "match", ("fire", "tools", "home")),
    _F("The gardener cut the grass with a lawn ___.", "mower", ("tools", "land", "people", "home")),
    _F("She cut the paper with a pair of ___.", "scissors", ("tools", "writing")),
    _F("At the end of the match, the referee blew his ___.", "whistle", ("sport", "people")),
    _F("The baby drank her milk from a ___.", "bottle", ("kitchen", "food", "people", "clothing")),
    _F("He put the wedding ring on her ___.", "finger", ("body", "festivity", "clothing", "money")),
    _F("The goalkeeper dived and caught the ___.", "ball", ("sport", "people")),
    _F("For the pain, the doctor gave him a ___.", "pill", ("health", "people", "body")),
    _F("To hide his face, the robber wore a ___.", "mask", ("crime", "clothing", "body", "people")),
    _F("The tailor measured him for a new ___.", "suit", ("clothing", "tools", "people")),
    _F("The volcano erupted and poured out red hot ___.", "lava", ("land", "fire")),
    _F("The farmer planted seeds in his ___.", "field", ("farm", "land", "food", "home", "tools")),
    _F("In the fairy tale, the frog was kissed by the beautiful ___.", "princess", ("royalty", "people", "animal")),
    _F("The eagle spread its ___.", "wings", ("animal", "sky")),
    _F("The choir performed a beautiful ___.", "song", ("arts", "people")),
    _F("The captain stood at the wheel and steered the ___.", "ship", ("transport", "people", "land")),
    _F("The artist painted the picture with a ___.", "brush", ("arts", "tools", "people")),
    _F("The shepherd counted his ___.", "sheep", ("farm", "animal", "clothing", "number", "people")),
    _F("The spy sent his boss a secret ___.", "message", ("writing", "people", "crime")),
    _F("The singer stepped up to the ___.", "microphone", ("arts", "people", "home")),
    _F("He paid for the coffee and left the waiter a ___.", "tip", ("money", "food", "people", "writing")),
    _F("The children opened their presents under the Christmas ___.", "tree", ("festivity", "land", "animal", "people")),
    _F("On Christmas Eve, Santa Claus came down the ___.", "chimney", ("festivity", "home", "transport", "people", "fire")),
    _F("She always wears her heart on her ___.", "sleeve", ("clothing", "body", "festivity", "mind")),
    _F("Old MacDonald had a ___.", "farm", ("farm", "animal", "arts")),
    _F("At the ball, Cinderella lost her glass ___.", "slipper", ("clothing", "royalty", "festivity", "people")),
    _F("A bird in the hand is worth two in the ___.", "bush", ("land", "animal", "body", "number")),
    _F("The quick brown fox jumps over the lazy ___.", "dog", ("animal", "body")),
    _F("Snow White lived with the seven ___.", "dwarfs", ("royalty", "food", "people", "number")),
    _F("Little Red Riding Hood met the big bad ___.", "wolf", ("animal", "royalty", "people", "clothing")),
    _F("The wolf huffed and puffed at the house of the three little ___.", "pigs", ("animal", "farm", "home", "royalty", "number")),
    _F("Twinkle, twinkle, little ___.", "star", ("sky", "arts", "home")),
    _F("Practice makes ___.", "perfect", ("arts", "mind", "sport")),
    _F("Curiosity killed the ___.", "cat", ("animal", "mind", "land")),
    _F("Every cloud has a silver ___.", "lining", ("weather", "sky", "money", "clothing")),
    _F("The pen is mightier than the ___.", "sword", ("crime", "writing", "mind")),
    _F("All that glitters is not ___.", "gold", ("money", "clothing", "people")),
    _F("Beauty is in the eye of the ___.", "beholder", ("people", "body", "clothing", "mind", "arts")),
    _F("Don't put all your eggs in one ___.", "basket", ("food", "farm", "kitchen", "money")),
    _F("It is raining cats and ___.", "dogs", ("animal", "weather")),
    _F("Necessity is the mother of ___.", "invention", ("mind", "people")),
    _F("Laughter is the best ___.", "medicine", ("health", "people", "mind")),
    _F("Honesty is the best ___.", "policy", ("mind", "people")),
    _F("Money does not grow on ___.", "trees", ("money", "land")),
    # Added in version 3.0: more sentences (a task's 150 items per instruction each get their own).
    _F("The hungry mouse nibbled a piece of ___.", "cheese", ("animal", "food", "home", "kitchen")),
    _F("The letter was delivered by the ___.", "postman", ("writing", "people", "transport")),
    _F("She wiped her mouth with a paper ___.", "napkin", ("kitchen", "food", "body")),
    _F("The detective examined the clue with a magnifying ___.", "glass", ("crime", "tools", "people")),
    _F("The thief was sent to ___.", "prison", ("crime", "people")),
    _F("The wind filled the boat's ___.", "sails", ("transport", "weather")),
    _F("Rain fell from the dark ___.", "clouds", ("weather", "sky")),
    _F("The rooster crowed at ___.", "dawn", ("farm", "animal", "time")),
    _F("The children rode down the snowy hill on a ___.", "sled", ("weather", "sport", "transport")),
    _F("The pilot flew the ___.", "plane", ("transport", "sky", "people")),
    _F("He drank his tea from a china ___.", "cup", ("kitchen", "food")),
    _F("The dog chewed on a big ___.", "bone", ("animal", "food", "body")),
    _F("The rabbit ate a crunchy orange ___.", "carrot", ("food", "animal", "farm", "land")),
    _F("She brushed and braided her long ___.", "hair", ("body", "clothing")),
    _F("The students wrote in their ___.", "notebooks", ("writing", "people")),
    _F("He rang the bell on his ___.", "bicycle", ("transport", "sport")),
    _F("The doctor gave the child a flu ___.", "shot", ("health", "people", "body")),
    _F("After the long run, she was covered in ___.", "sweat", ("body", "sport", "health")),
    _F("The farmer plowed the field with his ___.", "tractor", ("farm", "transport", "land", "tools")),
    _F("All winter, the bear slept in its ___.", "cave", ("animal", "land", "weather", "time")),
    _F("The soldiers marched into ___.", "battle", ("crime", "people")),
    _F("The witch flew through the night on her ___.", "broomstick", ("royalty", "transport", "home", "time")),
    _F("The mechanic fixed the flat ___.", "tire", ("transport", "tools")),
    _F("The fisherman caught fish in his ___.", "net", ("animal", "tools", "land", "food")),
    _F("The vampire slept all day in his ___.", "coffin", ("royalty", "people", "home", "time")),
    _F("The musician played the violin with a ___.", "bow", ("arts", "tools")),
    _F("She cleaned the floor with a mop and a ___.", "bucket", ("home", "tools")),
    _F("After the thunder came a flash of ___.", "lightning", ("weather", "sky", "fire")),
    _F("To drive in the nail, the carpenter picked up his ___.", "hammer", ("tools", "home", "people")),
)
