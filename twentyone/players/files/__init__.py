"""Players that come from a student's files.

- ``intake``: a file, folder or zip as handed in, turned into the strategy file and the student's name;
- ``python``: a Python file's function set (a copy of ``mycodes/mycodes.py``) or its ``STRATEGY`` class.
"""
