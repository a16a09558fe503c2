"""The golden files and the code that writes, checks and replays them."""
