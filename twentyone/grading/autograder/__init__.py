"""The course platforms' autograders, one submission at a time, and the class bonus that follows.

- ``bundle``: ``twentyone autograder gradescope`` (a zip with ``setup.sh`` and ``run_autograder`` at its root, as
  Gradescope's autograder specification lays it out) and ``twentyone autograder prairielearn`` (an external
  grader: its Dockerfile, the grading script for ``/grade``, an example question), each with a wheel of twentyone
  and the rubric;
- ``alone``: one submission graded by the rubric on its own (the platforms' ``run_autograder``, a student's
  ``twentyone check``): everything but the class tournament, which needs the class;
- ``bonus``: ``twentyone autograder bonus``: the class tournament and its bonus, from the class's
  ``results.sqlite`` files or its downloaded hand-ins, once every hand-in is in;
- ``commands``: the command lines (``autograder ...`` and ``check``).

The results a student reads are ``grading.platforms``'s, in words.
"""
