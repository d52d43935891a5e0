"""Word data of the dialogue games (built by scripts/build_game_words.py; licences in LICENSES.md)."""
