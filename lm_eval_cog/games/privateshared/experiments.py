"""The five Private/Shared experiments: scenario, questioner tag, slots, their values and texts.

All texts and value lists are this project's own (clembench's are MIT-licensed but not at hand).
Each slot has at least two request wordings (the questioner's) and two probe wordings (the game
master's); an instance draws one request wording per slot and one probe wording per slot and
probing round, as clembench's instance generator does. Values are chosen so that no value of an
experiment contains another (case-insensitive): slot filling and anticipation are substring tests.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How an experiment's values are drawn (see :func:`~lm_eval_cog.games.privateshared.instances.draw_instance`).
PER_SLOT, POOL, NUMBERS = "per_slot", "pool", "numbers"


@dataclass(frozen=True)
class Slot:
    """One piece of private information.

    Attributes:
        name: Lower-case key; the instructions show it upper-case (``FROM: Oslo``).
        requests: Wordings of the questioner's request for it.
        probes: Wordings of the game master's probe "does the other party already know it?".
        values: Candidate values (``PER_SLOT`` experiments only; empty otherwise).
    """

    name: str
    requests: tuple[str, ...]
    probes: tuple[str, ...]
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Experiment:
    """One experiment (a scenario with its slots, in the fixed probing order).

    Attributes:
        name: Display name (``travel-booking``).
        tag: The questioner's tag, without the colon (``TRAVEL-AGENT``).
        what: Value of the ``WHAT:`` line.
        partner: How the instructions name the questioner (``the travel agent``).
        scenario: The situation, in the second person.
        slots: The slots in the fixed probing order.
        draw: ``PER_SLOT`` (one value from each slot's list), ``POOL`` (distinct values from
            ``pool``) or ``NUMBERS`` (distinct random 4-digit numbers).
        pool: Shared candidate values (``POOL`` only).
    """

    name: str
    tag: str
    what: str
    partner: str
    scenario: str
    slots: tuple[Slot, ...]
    draw: str = PER_SLOT
    pool: tuple[str, ...] = ()

    def candidate_values(self) -> tuple[str, ...]:
        """Every value an instance of this experiment can hold (empty for ``NUMBERS``)."""
        if self.draw == POOL:
            return self.pool
        return tuple(v for slot in self.slots for v in slot.values)


TRAVEL = Experiment(
    name="travel-booking",
    tag="TRAVEL-AGENT",
    what="Travel",
    partner="the travel agent",
    scenario="You are planning a trip, and a travel agent is going to book it for you. "
    "Below are the details of your trip. Only you know them: the travel agent does not know them yet.",
    slots=(
        Slot("from", ("Where will you be travelling from?", "Which city are you departing from?"),
             ("Does the travel agent already know where you are travelling from?",
              "Has the travel agent already been told your departure city?"),
             ("Lisbon", "Oslo", "Vienna", "Dublin", "Prague", "Helsinki", "Warsaw", "Madrid")),
        Slot("to", ("Where would you like to go?", "What is your destination?"),
             ("Does the travel agent already know your destination?",
              "Has the travel agent already been told where you want to go?"),
             ("Toronto", "Nairobi", "Seoul", "Santiago", "Sydney", "Montreal", "Cairo", "Bogota")),
        Slot("by", ("How would you like to travel?", "Which means of transport do you prefer?"),
             ("Does the travel agent already know how you want to travel?",
              "Has the travel agent already been told your means of transport?"),
             ("train", "plane", "ferry", "coach", "bicycle", "motorbike", "sailboat", "camper van")),
        Slot("class", ("Which class would you like to travel in?", "What class of ticket do you want?"),
             ("Does the travel agent already know which class you want to travel in?",
              "Has the travel agent already been told your travel class?"),
             ("economy", "business", "first class", "sleeper cabin", "couchette", "executive", "deluxe",
              "club class")),
        Slot("when", ("When do you want to travel?", "When would you like to leave?"),
             ("Does the travel agent already know when you want to travel?",
              "Has the travel agent already been told your travel date?"),
             ("tomorrow morning", "next Monday", "next weekend", "Christmas Eve", "Easter Sunday",
              "early August", "mid-October", "New Year's Day")),
    ),
)  # fmt: skip

JOB = Experiment(
    name="job-interview",
    tag="RECRUITER",
    what="Job application",
    partner="the recruiter",
    scenario="You have applied for a job, and a recruiter is interviewing you. "
    "Below is the information about you. Only you know it: the recruiter does not know it yet.",
    slots=(
        Slot("bachelor", ("What did you study for your bachelor's degree?",
                          "What was the subject of your bachelor's degree?"),
             ("Does the recruiter already know what you studied for your bachelor's degree?",
              "Has the recruiter already been told the subject of your bachelor's degree?"),
             ("Biology", "Computer Science", "Economics", "History", "Mechanical Engineering", "Psychology",
              "Linguistics", "Architecture")),
        Slot("industry-experience", ("How much industry experience do you have?",
                                     "What work experience do you have in industry?"),
             ("Does the recruiter already know how much industry experience you have?",
              "Has the recruiter already been told about your industry experience?"),
             ("2 years in retail", "4 years in banking", "6 years in logistics", "3 years in publishing",
              "1 year in consulting", "7 years in healthcare", "5 years in tourism", "8 years in insurance")),
        Slot("highest-education", ("What is your highest level of education?", "What is the highest degree you hold?"),
             ("Does the recruiter already know your highest level of education?",
              "Has the recruiter already been told your highest degree?"),
             ("PhD in Geology", "Master's in Statistics", "MBA", "Master's in Education", "Doctorate in Law",
              "Master's in Nursing", "Diploma in Design", "PhD in Astronomy")),
        Slot("other-skills", ("Do you have any other skills?", "What other skills can you offer?"),
             ("Does the recruiter already know about your other skills?",
              "Has the recruiter already been told what other skills you have?"),
             ("fluent Japanese", "Python programming", "public speaking", "carpentry", "sign language",
              "first aid", "video editing", "chess coaching")),
        Slot("availability", ("When could you start?", "When are you available to start working?"),
             ("Does the recruiter already know when you could start?",
              "Has the recruiter already been told about your availability?"),
             ("immediately", "next month", "after the summer", "in two weeks", "January", "in three months",
              "1 September", "part-time only")),
    ),
)  # fmt: skip

RESTAURANT = Experiment(
    name="restaurant",
    tag="WAITER",
    what="Restaurant order",
    partner="the waiter",
    scenario="You are having dinner at a restaurant, and a waiter is taking your order. "
    "Below is what you want to order. Only you know it: the waiter does not know it yet.",
    slots=(
        Slot("appetizer", ("What would you like as an appetizer?", "Which starter would you like?"),
             ("Does the waiter already know which appetizer you want?",
              "Has the waiter already been told your choice of starter?"),
             ("garlic bread", "bruschetta", "spring rolls", "shrimp cocktail", "stuffed mushrooms", "calamari",
              "nachos", "hummus")),
        Slot("drink", ("What would you like to drink?", "Can I bring you something to drink?"),
             ("Does the waiter already know what you want to drink?",
              "Has the waiter already been told your drink?"),
             ("lemonade", "sparkling water", "iced tea", "orange juice", "red wine", "espresso", "ginger ale",
              "apple cider")),
        Slot("main-dish", ("What would you like as a main course?", "Which main dish can I get you?"),
             ("Does the waiter already know which main dish you want?",
              "Has the waiter already been told your main course?"),
             ("lasagna", "beef burger", "mushroom risotto", "grilled salmon", "chicken curry", "pad thai",
              "vegetable paella", "pork schnitzel")),
        Slot("dessert", ("What would you like for dessert?", "Which dessert can I bring you?"),
             ("Does the waiter already know which dessert you want?",
              "Has the waiter already been told your dessert?"),
             ("tiramisu", "apple pie", "chocolate mousse", "cheesecake", "panna cotta", "lemon sorbet",
              "creme brulee", "banana split")),
        Slot("salad", ("Which salad would you like?", "Would you like a salad with that, and which one?"),
             ("Does the waiter already know which salad you want?",
              "Has the waiter already been told your choice of salad?"),
             ("Caesar salad", "Greek salad", "coleslaw", "potato salad", "caprese", "tabbouleh",
              "Waldorf salad", "Nicoise salad")),
    ),
)  # fmt: skip

PLACES = ("kitchen", "garage", "attic", "bathroom", "bedroom", "cellar", "garden", "balcony", "hallway", "office",
          "library", "closet", "porch", "pantry", "shed")  # fmt: skip
OBJECTS = ("scissors", "umbrella", "hammer", "candle", "blanket", "laptop", "teapot", "guitar", "helmet", "ladder",
           "mirror", "toaster", "wallet", "backpack", "flashlight", "stapler", "kettle", "globe", "telescope",
           "violin", "broom", "pillow", "camera", "calculator", "compass", "dictionary", "envelope", "football",
           "glove", "hairbrush")  # fmt: skip

THINGS_PLACES = Experiment(
    name="things-places",
    tag="QUESTIONER",
    what="Things at places",
    partner="the questioner",
    scenario="You have left one object in each of several places. "
    "Below is which object is in which place. Only you know it: the questioner does not know it yet.",
    slots=tuple(
        Slot(place, (f"What is in the {place}?", f"Which object did you leave in the {place}?"),
             (f"Does the questioner already know what is in the {place}?",
              f"Has the questioner already been told which object is in the {place}?"))
        for place in PLACES
    ),
    draw=POOL,
    pool=OBJECTS,
)  # fmt: skip

LETTER_NUMBER = Experiment(
    name="letter-number",
    tag="QUESTIONER",
    what="Numbered letters",
    partner="the questioner",
    scenario="Each of the letters below has a number. "
    "Only you know these numbers: the questioner does not know them yet.",
    slots=tuple(
        Slot(letter, (f"What is the number of the letter {letter.upper()}?",
                      f"Which number goes with the letter {letter.upper()}?"),
             (f"Does the questioner already know the number of the letter {letter.upper()}?",
              f"Has the questioner already been told which number goes with the letter {letter.upper()}?"))
        for letter in "abcdefghij"
    ),
    draw=NUMBERS,
)  # fmt: skip

#: The experiments in the order episodes cycle through them (clembench's order; 10 episodes each).
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (TRAVEL, JOB, RESTAURANT, THINGS_PLACES, LETTER_NUMBER)}
EXPERIMENT_NAMES: tuple[str, ...] = tuple(EXPERIMENTS)
