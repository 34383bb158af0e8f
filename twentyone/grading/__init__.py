"""Grading and tournaments: many matches played, stored, scored by the rubric and reported.

The write side plays: ``plan`` (which matches), ``runner`` (where they run), ``grader`` (until each
criterion is decided), ``submissions`` (each student's file, through ``players.intake``), into ``store``.  The read side
scores and reports from the store alone: ``rubric`` (who won, the decision rule), ``standings``,
``scoring``, ``results`` (the values reports are written from) and ``report``.  ``commands`` holds
the ``grade``, ``tournament`` and ``report`` commands.  Nothing is imported here.
"""
