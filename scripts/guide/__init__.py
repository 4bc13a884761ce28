"""The project's one results model (see scripts/results.py for the command line).

model.py     columns, the table of contents, results/sweeps files: reading and validating
evidence.py  results/evidence/*.csv, chapters/*/evidence.toml, claims and predictions
render.py    the generated README blocks and inline values
book.py      the JSON document the book lays out
"""
