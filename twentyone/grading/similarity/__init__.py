"""Which submissions share work, by code and by play (``twentyone similar``, and the page of every grade).

- ``fingerprints``: each file parsed (tree-sitter), tokenised, k-grams winnowed (the code score);
- ``tracer``, ``traces``: the decision traces of a submission's first matches against ``stand``;
- ``behaviour``: two submissions compared in the same situations (the behaviour score);
- ``pairs``: the ranked table of pairs, from the store alone;
- ``pages``: the similarity page and a side-by-side page per pair;
- ``command``: ``twentyone similar``.
"""
