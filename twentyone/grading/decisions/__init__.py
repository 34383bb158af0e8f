"""Decision review in a grade (issue 26), the part of grading that prices and shows what a student decided.

- ``keptlog``: the round log a graded match keeps, packed (the traced and sample matches whole, the others' foul
  rounds);
- ``pricing``: each kept decision priced by the exact analyser, in the worker that played the match (the write
  side: ``runner`` calls it);
- ``numbers``: a student's review from the store alone (EV lost per 100 hands, the costliest decisions, the
  heat map);
- ``pages``: the review on the grade's pages, and the replay pages themselves.

``twentyone review`` (any round log, from the command line) is ``twentyone.review``; this package, the review
of a grade's decisions, is named apart from it.
"""
