"""Sentence frames of the ``hayling`` probe: high-cloze sentences with their endings.

The frames are ours, written for this probe and modelled on the kind of item the
Hayling Sentence Completion Test uses (Burgess & Shallice, 1996, 1997): a short common
English sentence whose last word is strongly predicted by the rest (high cloze
probability, as in the cloze norms of Bloom & Fischler, 1980). None is an item of
the published, copyrighted test. Each frame is
``Frame(text, prepotent, related, avoid)``:

``text``
    The sentence with one blank ``___``, always its last word.
``prepotent``
    The completion nearly everyone gives: the key of Hayling A (initiation) and the
    lure of Hayling B (suppression).
``related``
    A word connected to the sentence or to its ending that is still no sensible
    completion (a "somewhat connected" answer, the Hayling B category-B error): a
    wrong option in both conditions.
``avoid``
    The domains of :data:`UNRELATED` whose words could fit, or be connected to, the
    sentence (e.g. ``vehicle`` for "He dug a hole with a ___": a bulldozer digs); the
    unrelated answer of Hayling B is drawn from the other domains.

Where the blank follows "a", every word offered for it starts with a consonant, so
the article never tells the answer; no frame has "an ___".
"""

from __future__ import annotations

from typing import NamedTuple

BLANK = "___"


class Frame(NamedTuple):
    text: str
    prepotent: str
    related: str
    avoid: tuple[str, ...]


#: Unrelated words by domain: concrete singular nouns, consonant-initial, none of them
#: an ending or a related word of any frame. A frame excludes the domains it touches.
#: Short words (3-5 letters) stand beside long ones in every domain, so that the probe can
#: pick an unrelated word shorter than, between or longer than a frame's two endings.
UNRELATED: dict[str, tuple[str, ...]] = {
    "music": ("violin", "trumpet", "harp", "banjo", "tuba", "cello", "gong", "lute", "kazoo", "bongo"),
    "produce": ("turnip", "cabbage", "pickle", "walnut", "radish", "lettuce", "yam", "fig", "leek", "beet"),
    "animal": ("giraffe", "penguin", "walrus", "donkey", "beetle", "hamster", "yak", "newt", "vole", "deer"),
    "nature": ("glacier", "comet", "pebble", "cactus", "canyon", "boulder", "dune", "cave", "cliff"),
    "tool": ("wrench", "stapler", "chisel", "magnet", "funnel", "rasp"),
    "garment": ("mitten", "necktie", "sandal", "bonnet", "poncho", "kilt", "toga", "cape", "beret"),
    "vehicle": ("canoe", "submarine", "bulldozer", "tricycle", "wheelbarrow", "tram", "cab"),
    "household": ("teapot", "pillow", "bucket", "kettle", "lampshade", "doorknob", "rug", "bin"),
}

_F = Frame
FRAMES: tuple[Frame, ...] = (
    # Everyday events.
    _F("He mailed the letter without a ___.", "stamp", "postman", ()),
    _F("The cat chased the ___.", "mouse", "cheese", ("animal", "vehicle")),
    _F("Before going to bed, she brushed her ___.", "teeth", "toothpaste", ("animal", "household", "garment")),
    _F("The sun rises in the ___.", "east", "west", ("nature",)),
    _F("He unlocked the door with his ___.", "key", "lock", ("tool",)),
    _F("In the morning, she drank a cup of hot ___.", "coffee", "saucer", ("produce", "household")),
    _F("The ship sank to the bottom of the ___.", "sea", "sailor", ("nature", "vehicle")),
    _F("She blew her nose into a ___.", "tissue", "sneeze", ("garment", "household")),
    _F("High in the tree, the bird built a ___.", "nest", "feather", ("animal", "nature")),
    _F("He was so thirsty that he drank a whole glass of ___.", "water", "bottle", ("produce", "household")),
    _F("The children went to school on the yellow ___.", "bus", "driver", ("vehicle",)),
    _F("She cut the birthday cake with a ___.", "knife", "candle", ("tool", "household")),
    _F("At the end of the long day, the tired man went to ___.", "bed", "mattress", ("household",)),
    _F("The happy dog wagged its ___.", "tail", "bone", ("animal",)),
    _F("To hang the picture on the wall, he hammered in a ___.", "nail", "frame", ("tool", "household")),
    _F("When water gets very cold, it turns into ___.", "ice", "winter", ("nature",)),
    _F("She combed her hair and looked at herself in the ___.", "mirror", "lipstick", ("household",)),
    _F("He signed his name with a ___.", "pen", "paper", ("tool", "household")),
    _F("Every morning, the farmer milked the ___.", "cow", "barn", ("animal",)),
    _F("Bees collect nectar to make ___.", "honey", "flowers", ("produce", "animal")),
    _F("The astronaut flew to the ___.", "moon", "helmet", ("nature", "vehicle")),
    _F("When it started to rain, she opened her ___.", "umbrella", "puddle", ("garment", "household")),
    _F("The king wore a golden ___.", "crown", "throne", ("garment",)),
    _F("In the corner of the room, the spider spun a ___.", "web", "fly", ("animal",)),
    _F("She paid for the groceries with her credit ___.", "card", "money", ()),
    _F("Firefighters rushed to put out the ___.", "fire", "siren", ("tool", "vehicle")),
    _F("He checked the time on his ___.", "watch", "minute", ("household",)),
    _F("The mouse was caught in a ___.", "trap", "cheese", ("animal", "household", "tool")),
    _F("She screamed when she was stung by a ___.", "bee", "honey", ("animal", "nature")),
    _F("Cows give us ___.", "milk", "grass", ("produce", "animal")),
    _F("The monkey peeled and ate a ___.", "banana", "jungle", ("produce", "animal")),
    _F("The pirates dug up the buried ___.", "treasure", "parrot", ("tool", "vehicle", "household")),
    _F("At the wedding, the bride wore a white ___.", "dress", "groom", ("garment",)),
    _F("The students listened carefully to the ___.", "teacher", "classroom", ("music",)),
    _F("He was so hungry that he could eat a ___.", "horse", "saddle", ("animal", "produce")),
    _F("There is no use crying over spilled ___.", "milk", "tears", ("produce",)),
    _F("The early bird catches the ___.", "worm", "nest", ("animal",)),
    _F("Actions speak louder than ___.", "words", "deeds", ("music",)),
    _F("After breakfast, she put the milk back in the ___.", "fridge", "cow", ("household",)),
    _F("He went to the bakery to buy a loaf of ___.", "bread", "flour", ("produce",)),
    _F("The goldfish swam around in its glass ___.", "bowl", "fin", ("household", "animal")),
    _F("She turned on the light by flipping the ___.", "switch", "bulb", ("household", "tool")),
    _F("He dug a deep hole in the garden with a ___.", "shovel", "dirt", ("tool", "vehicle")),
    _F("The ship stopped, and the sailor dropped the ___.", "anchor", "seagull", ("vehicle", "tool", "household")),
    _F("The chef cooked dinner in the ___.", "kitchen", "recipe", ("household",)),
    _F("After the snowfall, the children built a ___.", "snowman", "carrot", ("produce", "nature")),
    _F("The doctor listened to his heart with a ___.", "stethoscope", "pulse", ("tool", "music")),
    _F("The queen sat down on her ___.", "throne", "crown", ("household",)),
    _F("She swept the kitchen floor with a ___.", "broom", "dust", ("household", "tool")),
    _F("The moon shines brightly at ___.", "night", "noon", ()),
    _F("The baby slept peacefully in its ___.", "crib", "lullaby", ("household",)),
    _F("She sewed on the button with a needle and ___.", "thread", "haystack", ("tool", "garment")),
    _F("Please pass the salt and ___.", "pepper", "sneeze", ("produce", "household")),
    _F("He spread the warm toast with ___.", "butter", "crumbs", ("produce",)),
    _F("The train slowly pulled into the ___.", "station", "ticket", ("vehicle",)),
    _F("The plane landed safely at the ___.", "airport", "pilot", ("vehicle",)),
    _F("A stitch in time saves ___.", "nine", "needle", ()),
    _F("The cowboy jumped on his ___.", "horse", "lasso", ("animal", "vehicle")),
    _F("Out of sight, out of ___.", "mind", "eyes", ()),
    _F("The ripe apple fell from the ___.", "tree", "seed", ("nature", "produce")),
    _F("She locked her jewels in the ___.", "safe", "robber", ("household", "tool")),
    _F("He blew out the candles on his birthday ___.", "cake", "balloon", ("household", "produce")),
    _F("The ball bounced over the garden ___.", "fence", "gardener", ("nature",)),
    _F("He put on his socks and ___.", "shoes", "feet", ("garment",)),
    _F("The ice cream melted in the hot ___.", "sun", "cone", ("nature",)),
    _F("The hen sat on her ___.", "eggs", "rooster", ("animal",)),
    _F("The knight pulled out his ___.", "sword", "armor", ("tool",)),
    _F("The cat sat on the ___.", "mat", "purr", ("household", "animal", "nature")),
    _F("He poured milk on his breakfast ___.", "cereal", "spoon", ("produce",)),
    _F("The burglar climbed in through the open ___.", "window", "glass", ("household", "tool")),
    _F("In autumn, the tree lost all its ___.", "leaves", "rake", ("nature", "produce")),
    _F("She looked up at the stars in the night ___.", "sky", "telescope", ("nature",)),
    _F("He kept sneezing because he had a ___.", "cold", "tissue", ("animal",)),
    _F("Two plus two equals ___.", "four", "five", ()),
    _F("The baker put the bread in the ___.", "oven", "flour", ("household",)),
    _F("On windy days, the boy liked to fly his ___.", "kite", "string", ("vehicle",)),
    _F("The frog jumped into the ___.", "pond", "tadpole", ("nature", "animal", "household", "vehicle")),
    _F("The carpenter cut the plank with a ___.", "saw", "splinter", ("tool",)),
    _F("The visitor knocked on the front ___.", "door", "key", ("household",)),
    _F("The teacher wrote on the board with a piece of ___.", "chalk", "eraser", ()),
    _F("The camel walked for days across the ___.", "desert", "hump", ("nature", "animal")),
    _F("To see in the dark, he switched on his ___.", "flashlight", "battery", ("household",)),
    _F("The lion is the king of the ___.", "jungle", "zebra", ("animal", "nature")),
    _F("He went fishing and caught a big ___.", "fish", "hook", ("animal",)),
    _F("He parked the car in the ___.", "garage", "wheel", ("vehicle", "household")),
    _F("She stirred her coffee with a ___.", "spoon", "sugar", ("household", "tool")),
    _F("The wedding guests cheered for the bride and ___.", "groom", "veil", ()),
    _F("To reach the roof, he climbed up a ___.", "ladder", "rung", ("tool", "nature", "household")),
    _F("In autumn, the squirrel gathered ___.", "nuts", "tail", ("produce", "animal")),
    _F("The ambulance took the injured man to the ___.", "hospital", "siren", ("vehicle",)),
    _F("To light the fire, he struck a ___.", "match", "wick", ("household", "tool", "nature")),
    _F("The gardener cut the grass with a lawn ___.", "mower", "weed", ("tool",)),
    _F("She cut the paper with a pair of ___.", "scissors", "glue", ("tool",)),
    _F("At the end of the match, the referee blew his ___.", "whistle", "stadium", ("music",)),
    _F("The baby drank her milk from a ___.", "bottle", "cradle", ("household", "tool")),
    _F("He put the wedding ring on her ___.", "finger", "diamond", ("garment",)),
    _F("The goalkeeper dived and caught the ___.", "ball", "net", ()),
    _F("The dentist looked at the patient's ___.", "teeth", "drill", ("tool",)),
    _F("For the pain, the doctor gave him a ___.", "pill", "stethoscope", ()),
    _F("To hide his face, the robber wore a ___.", "mask", "gun", ("garment",)),
    _F("The tailor measured him for a new ___.", "suit", "needle", ("garment",)),
    _F("The volcano erupted and poured out red hot ___.", "lava", "crater", ("nature",)),
    _F("The farmer planted seeds in his ___.", "field", "scarecrow", ("nature", "vehicle", "produce", "household")),
    _F("In the fairy tale, the prince kissed the sleeping ___.", "princess", "castle", ("animal",)),
    _F("The eagle spread its ___.", "wings", "beak", ("animal",)),
    _F("The choir sang a beautiful ___.", "song", "stage", ("music",)),
    _F("The captain stood at the wheel and steered the ___.", "ship", "wave", ("vehicle",)),
    _F("The artist painted the picture with a ___.", "brush", "canvas", ("tool",)),
    _F("The shepherd counted his ___.", "sheep", "wool", ("animal",)),
    _F("The spy sent his boss a secret ___.", "message", "agent", ()),
    _F("The singer stepped up to the ___.", "microphone", "applause", ("music",)),
    _F("He paid for the coffee and left the waiter a ___.", "tip", "menu", ()),
    _F("The children opened their presents under the Christmas ___.", "tree", "reindeer", ("nature", "animal")),
    _F("On Christmas Eve, Santa Claus came down the ___.", "chimney", "sleigh", ("vehicle", "household")),
    _F("The students who knew the answer raised their ___.", "hands", "question", ()),
    _F("She always wears her heart on her ___.", "sleeve", "valentine", ("garment",)),
    # Nursery rhymes, fairy tales and sayings: the most predictable endings there are.
    _F("Hickory dickory dock, the mouse ran up the ___.", "clock", "cheese", ("household", "animal")),
    _F("Old MacDonald had a ___.", "farm", "cowbell", ("animal", "vehicle", "produce")),
    _F("At the ball, Cinderella lost her glass ___.", "slipper", "pumpkin", ("garment", "produce")),
    _F("A bird in the hand is worth two in the ___.", "bush", "feather", ("nature",)),
    _F("The quick brown fox jumps over the lazy ___.", "dog", "leash", ("animal",)),
    _F("Snow White lived with the seven ___.", "dwarfs", "apple", ("produce",)),
    _F("Little Red Riding Hood met the big bad ___.", "wolf", "grandmother", ("animal",)),
    _F("The wolf huffed and puffed at the house of the three little ___.", "pigs", "straw", ("animal",)),
    _F("Humpty Dumpty sat on a ___.", "wall", "king", ("household", "nature")),
    _F("Jack and Jill went up the ___.", "hill", "pail", ("household", "nature")),
    _F("Twinkle, twinkle, little ___.", "star", "diamond", ("nature",)),
    _F("Rome was not built in a ___.", "day", "gladiator", ()),
    _F("The grass is always greener on the other ___.", "side", "fence", ()),
    _F("Curiosity killed the ___.", "cat", "whisker", ("animal",)),
    _F("Every cloud has a silver ___.", "lining", "spoon", ("household",)),
    _F("A picture is worth a thousand ___.", "words", "brushes", ()),
    _F("The pen is mightier than the ___.", "sword", "ink", ("tool",)),
    _F("All that glitters is not ___.", "gold", "jewel", ()),
    _F("Beauty is in the eye of the ___.", "beholder", "mirror", ()),
    _F("Where there is smoke, there is ___.", "fire", "ash", ("nature",)),
    _F("It is raining cats and ___.", "dogs", "umbrella", ("animal",)),
    _F("Once upon a ___.", "time", "castle", ()),
    _F("Necessity is the mother of ___.", "invention", "father", ()),
    _F("Laughter is the best ___.", "medicine", "doctor", ()),
    _F("Honesty is the best ___.", "policy", "liar", ()),
    _F("Time flies when you are having ___.", "fun", "hourglass", ()),
    _F("Money does not grow on ___.", "trees", "coins", ("nature",)),
    _F("You cannot judge a book by its ___.", "cover", "bookmark", ()),
    _F("He killed two birds with one ___.", "stone", "arrow", ("nature",)),
    _F("She hit the nail on the ___.", "head", "hammer", ("tool",)),
    _F("Every dog has its ___.", "day", "calendar", ("animal",)),
)
